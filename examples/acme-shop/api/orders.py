"""Orders: totals in integer cents, idempotent creation by client key."""

_orders_by_key = {}


def order_total_cents(lines):
    """Sum of quantity * unit price, all integers (cents)."""
    return sum(line["quantity"] * line["unit_cents"] for line in lines)


def create_order(idempotency_key, lines, payment_token):
    """Create an order once per idempotency key; a repeat returns the first order."""
    if idempotency_key in _orders_by_key:
        return _orders_by_key[idempotency_key]
    order = {"total_cents": order_total_cents(lines), "payment_token": payment_token}
    _orders_by_key[idempotency_key] = order
    return order
