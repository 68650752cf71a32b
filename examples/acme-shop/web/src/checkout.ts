// Checkout: hands card entry to the provider's hosted fields and sends only the token.
export async function submitOrder(token: string, idempotencyKey: string): Promise<Response> {
  return fetch("/api/orders", {
    method: "POST",
    headers: { "Idempotency-Key": idempotencyKey, "Content-Type": "application/json" },
    body: JSON.stringify({ paymentToken: token }),
  });
}
