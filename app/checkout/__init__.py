"""The customer-facing pages: hosted checkout, 3-D Secure step, receipts (`{pay_url}/...`), the
local methods' sandbox bank pages and the browser script (`{js_url}/v1/qafila.js`). See
app/checkout/pages.py; the pieces they share are app/checkout/common.py."""
from aiohttp import web

from app.checkout import pages, sandbox


def install(app: web.Application, settings) -> None:
    pay = pages.install(app, settings)
    sandbox.install(app.router, pay)          # the KNET and BenefitPay sandbox pages
    pages.install_unknown(app.router, pay)    # last: the 404 page of any other path under the prefix


__all__ = ["install"]
