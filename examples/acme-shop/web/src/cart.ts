// The cart store: the single source of cart lines for every component.
export type CartLine = { sku: string; quantity: number; unitCents: number };

let lines: CartLine[] = [];

export function addLine(line: CartLine): void {
  const existing = lines.find((l) => l.sku === line.sku);
  if (existing) existing.quantity += line.quantity;
  else lines = [...lines, line];
}

export function totalCents(): number {
  return lines.reduce((sum, l) => sum + l.quantity * l.unitCents, 0);
}
