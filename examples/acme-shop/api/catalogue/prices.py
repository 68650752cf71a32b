"""Catalogue prices in integer cents, served by GET /catalogue/prices."""

PRICES_CENTS = {"mug-blue": 1200, "tee-black-m": 2500}


def price_cents(sku):
    """The price of one SKU in cents, or None when the SKU is unknown."""
    return PRICES_CENTS.get(sku)
