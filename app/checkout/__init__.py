"""The customer-facing pages: hosted checkout, 3-D Secure step, receipts (`{pay_url}/...`) and
the browser script (`{js_url}/v1/qafila.js`). See app/checkout/pages.py."""
from app.checkout.pages import install

__all__ = ["install"]
