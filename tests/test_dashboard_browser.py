"""The dashboard (/dashboard, React over /graphql) in a real headless browser, as a member would
use it, in Arabic and English: sign-in with the e-mailed code and an authenticator code, every
page of this part (home, payments, a payment, disputes, a dispute, balance) with its one h1, the
refund (numbers equal the API's), the CSV export, evidence with a file, the invitation link, and a
view_only member who sees no Refund. Each scenario asserts that the page called /graphql only
(nothing outside the origin, no other path) and logged no error (tests/dashboard_fixtures.py)."""
from __future__ import annotations

import asyncio
import csv
import io
import re
from datetime import timedelta
from urllib.parse import quote

import pyotp
import pytest
from playwright.sync_api import expect

from tests.dashboard_fixtures import AXE, PDF, axe_violations, browser, dash, needs_browser  # noqa: F401
from tests.money_fixtures import DISPUTE_CARD, run_until

pytestmark = needs_browser

ARABIC_DIGITS = re.compile(r"[\u0660-\u0669]")
LATIN_DIGITS = re.compile(r"[0-9]")

PAGES = {  # path -> (en, ar) menu word = the page's h1
    "": ("Home", "الرئيسية"),
    "payments": ("Payments", "المدفوعات"),
    "disputes": ("Disputes", "النزاعات"),
    "balance": ("Balance", "الرصيد"),
}


def _h1(page) -> str:
    page.wait_for_selector("h1")
    assert page.locator("h1").count() == 1
    return page.locator("h1").inner_text().strip()


def _otp(mailer, email: str) -> str:
    mail = [m for m in mailer.sent if m.to.lower() == email.lower()][-1]
    return re.search(r"\b(\d{6})\b", mail.text).group(1)


async def _enable_two_factor(d) -> str:
    token = await d.owner_token()
    status, enrolled = await d.api("POST", "/api/me/two-factor/enroll", token=token)
    assert status == 200, enrolled
    code = pyotp.TOTP(enrolled["secret"]).at(int(d.clock.time()))
    status, body = await d.api("POST", "/api/me/two-factor/confirm", {"code": code}, token=token)
    assert status == 200, body
    d.clock.advance(seconds=30)      # the next code is a fresh one
    return enrolled["secret"]


async def test_sign_in_with_the_emailed_code_and_an_authenticator_code(dash):
    secret = await _enable_two_factor(dash)
    loop = asyncio.get_running_loop()

    def otp_now():   # the mail is sent by the app on the test's loop; read it from there
        return asyncio.run_coroutine_threadsafe(_read_otp(), loop).result(timeout=30)

    async def _read_otp():
        return _otp(dash.mailer, dash.email)

    def scenario(page):
        page.goto(dash.base + "/dashboard/payments?status=succeeded")
        page.wait_for_url(re.compile(r"/dashboard/login\?next="))
        assert "next=" + quote("/dashboard/payments?status=succeeded", safe="") in page.url
        assert page.locator("html").get_attribute("lang") == "en"
        assert _h1(page) == "Sign in to Qafila"
        page.get_by_label("Email").fill(dash.email)
        page.get_by_role("button", name="Send code").click()
        code = page.get_by_label("Code", exact=True)
        assert code.get_attribute("autocomplete") == "one-time-code"
        code.fill(otp_now())
        page.get_by_role("button", name="Sign in").click()
        page.get_by_label("Authenticator code").fill(pyotp.TOTP(secret).at(int(dash.clock.time())))
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(re.compile(r"/dashboard/payments\?status=succeeded$"))
        assert _h1(page) == "Payments"
        expect(page.get_by_text(dash.email)).to_be_visible()
        expect(page.get_by_text("Test mode")).to_be_visible()
        storage = page.evaluate("() => [localStorage.length, sessionStorage.length]")
        cookies = {c["name"]: c for c in page.context.cookies()}
        # Sign out ends this session: the pages go back to the sign-in.
        page.get_by_role("button", name="Sign out").click()
        page.wait_for_url(re.compile(r"/dashboard/login$"))
        page.goto(dash.base + "/dashboard/balance")
        page.wait_for_url(re.compile(r"/dashboard/login\?next="))
        return storage, cookies
    (storage, cookies), seen = await dash.run(scenario, locale="en-US")
    assert storage == [0, 0], "nothing in web storage"
    assert cookies["qafila_session"]["httpOnly"] and not cookies["qafila_csrf"]["httpOnly"]
    assert seen.graphql_posts >= 4


async def test_signed_out_pages_go_to_login_in_the_browser_language(dash):
    def scenario(page):
        page.goto(dash.base + "/dashboard/balance")
        page.wait_for_url(re.compile(r"/dashboard/login\?next=%2Fdashboard%2Fbalance"))
        html = page.locator("html")
        out = (html.get_attribute("lang"), html.get_attribute("dir"), _h1(page))
        expect(page.get_by_label("البريد الإلكتروني")).to_be_visible()
        expect(page.get_by_role("button", name="إرسال الرمز")).to_be_visible()
        page.goto(dash.base + "/dashboard/login?lang=tr")
        expect(page.get_by_label("E-posta")).to_be_visible()
        expect(page.get_by_role("button", name="Kod gönder")).to_be_visible()
        return out + (page.locator("html").get_attribute("dir"),)
    out, _ = await dash.run(scenario, locale="ar-SA")
    assert out == ("ar", "rtl", "تسجيل الدخول إلى قافلة", "ltr")


@pytest.mark.parametrize("lang", ["ar", "en"])
async def test_each_page_has_one_h1_its_menu_word(dash, lang):
    await dash.pay(12345, "KWD")
    session = await dash.owner_session()

    def scenario(page):
        out = {}
        for i, (path, words) in enumerate(PAGES.items()):
            page.goto(f"{dash.base}/dashboard/{path}" + (f"?lang={lang}" if i == 0 else ""))
            out[path] = _h1(page)
            assert page.locator("html").get_attribute("lang") == lang
            assert page.locator("html").get_attribute("dir") == ("rtl" if lang == "ar" else "ltr")
            nav = page.get_by_role("navigation")
            expect(nav.get_by_role("link", name=words[0 if lang == "en" else 1], exact=True)).to_be_visible()
        page.goto(f"{dash.base}/dashboard/payments")
        page.wait_for_selector("tbody tr")
        return out, page.locator("tbody tr td").nth(1).inner_text()
    (h1s, row), _ = await dash.run(scenario, session=session)
    assert h1s == {p: w[0 if lang == "en" else 1] for p, w in PAGES.items()}
    if lang == "ar":   # the amount's cell: Arabic-Indic digits, 3 decimals
        assert "١٢٫٣٤٥" in row and not LATIN_DIGITS.search(row), row
    else:
        assert row == "KWD\u00a012.345", row


async def test_the_language_is_saved_and_digits_follow_the_member(dash):
    session = await dash.owner_session()

    def scenario(page):
        page.goto(dash.base + "/dashboard/?lang=ar")
        page.wait_for_selector("[data-testid=volume]")
        return page.locator("[data-testid=volume]").inner_text()
    volume, _ = await dash.run(scenario, session=session, locale="en-US")
    assert ARABIC_DIGITS.search(volume) and not LATIN_DIGITS.search(volume)
    data = await dash.gql("{ viewer { member { language digits } } }", token=await dash.owner_token())
    assert data["viewer"]["member"]["language"] == "ar"

    # Saved: without ?lang the member's language wins over the browser's; Latin digits on request.
    await dash.gql('mutation { memberPreferencesUpdate(input: {language: "ar", digits: "latn"}) { userErrors { code } } }',
                   token=await dash.owner_token())

    def again(page):
        page.goto(dash.base + "/dashboard/")
        page.wait_for_selector("[data-testid=volume]")
        return page.locator("html").get_attribute("lang"), page.locator("[data-testid=volume]").inner_text()
    (lang, volume), _ = await dash.run(again, session=session, locale="en-US")
    assert lang == "ar" and LATIN_DIGITS.search(volume) and not ARABIC_DIGITS.search(volume)


async def test_payments_filter_search_live_rows_and_csv_export(dash):
    a = await dash.pay(1500, "SAR", customer={"email": "Layla.Haddad@Example.com", "phone": "+965 5012 3456"})
    b = await dash.pay(2500, "SAR")
    k = await dash.pay(9875, "KWD")
    session = await dash.owner_session()
    loop = asyncio.get_running_loop()

    def scenario(page):
        page.goto(dash.base + "/dashboard/payments?currency=SAR")
        page.wait_for_selector(f"tr[data-payment-id='{a['id']}']")
        listed = page.eval_on_selector_all("tbody tr", "rows => rows.map(r => r.dataset.paymentId)")
        # Search (e-mail in another case), in the address.
        page.get_by_role("searchbox", name="Search").fill("layla.haddad@example.com")
        page.get_by_role("button", name="Search", exact=True).click()
        page.wait_for_url(re.compile(r"q=layla"))
        page.wait_for_function("() => document.querySelectorAll('tbody tr').length === 1")
        found = page.eval_on_selector_all("tbody tr", "rows => rows.map(r => r.dataset.paymentId)")
        # A new matching payment appears on top without a reload (paymentEvents over the socket).
        frames: list[str] = []
        page.on("websocket", lambda ws: ws.on("framesent", lambda payload: frames.append(str(payload))))
        page.goto(dash.base + "/dashboard/payments?currency=KWD")
        page.wait_for_selector(f"tr[data-payment-id='{k['id']}']")
        for _ in range(250):       # until the page has subscribed (at most 5 s)
            if any('"subscribe"' in f for f in frames):
                break
            page.wait_for_timeout(20)
        assert any('"subscribe"' in f and "paymentEvents" in f for f in frames), frames
        fresh = asyncio.run_coroutine_threadsafe(dash.pay(4321, "KWD"), loop).result(timeout=30)
        asyncio.run_coroutine_threadsafe(dash.pay(777, "SAR"), loop).result(timeout=30)   # filtered out
        page.wait_for_selector(f"tbody tr:first-child[data-payment-id='{fresh['id']}']", timeout=20000)
        live = page.eval_on_selector_all("tbody tr", "rows => rows.map(r => r.dataset.paymentId)")
        # Export CSV: the filtered rows.
        with page.expect_download() as dl:
            page.get_by_role("button", name="Export CSV").click()
        download = dl.value
        return listed, found, fresh, live, download.suggested_filename, open(download.path(), encoding="utf-8").read()
    (listed, found, fresh, live, filename, text), _ = await dash.run(scenario, session=session)
    assert sorted(listed) == sorted([a["id"], b["id"]])
    assert found == [a["id"]]
    assert live == [fresh["id"], k["id"]]
    rows = list(csv.DictReader(io.StringIO(text)))
    assert filename.endswith(".csv")
    assert sorted((r["id"], r["amount"], r["currency"]) for r in rows) == sorted(
        [(fresh["id"], "4321", "KWD"), (k["id"], "9875", "KWD")])


async def test_refund_in_kwd_equals_the_api(dash):
    p = await dash.pay(12345, "KWD")
    session = await dash.owner_session()

    def scenario(page):
        page.goto(f"{dash.base}/dashboard/payments/{p['id']}?lang=en")
        assert _h1(page) == "Payments"
        page.get_by_role("button", name="Refund").click()
        dialog = page.get_by_role("dialog")
        amount = dialog.get_by_label("Amount")
        default = amount.input_value()
        # Escape closes the dialog and nothing is sent.
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
        page.get_by_role("button", name="Refund").click()
        amount.fill("1.5")
        # Tab stays in the dialog.
        for _ in range(6):
            page.keyboard.press("Tab")
            assert page.evaluate("() => !!document.activeElement.closest('dialog')")
        dialog.get_by_role("button", name="Confirm refund").click()
        expect(page.get_by_role("status")).to_contain_text("KWD\u00a01.500 refunded")
        expect(page.get_by_test_id("refunded")).to_have_text("KWD\u00a01.500")
        # the timeline: captured, then the refund with its amount and time
        expect(page.get_by_test_id("timeline-refund")).to_contain_text("Refunded KWD\u00a01.500")
        expect(page.locator("#timeline + ol")).to_contain_text("Captured KWD\u00a012.345")
        return default
    default, _ = await dash.run(scenario, session=session)
    assert default == "12.345"
    status, body = await dash.api("GET", f"/api/payments/{p['id']}")
    assert status == 200 and body["amount_refunded"] == 1500, body


async def test_refund_dialog_in_arabic_reads_arabic_digits(dash):
    p = await dash.pay(10000, "SAR")
    session = await dash.owner_session()

    def scenario(page):
        page.goto(f"{dash.base}/dashboard/payments/{p['id']}?lang=ar")
        assert _h1(page) == "المدفوعات"
        amount_text = page.get_by_test_id("amount").inner_text()
        hijri = page.locator("[data-calendar=islamic-umalqura]").first.inner_text()
        page.get_by_role("button", name="استرداد").click()
        page.get_by_role("dialog").get_by_label("المبلغ").fill("٢٫٥")
        page.get_by_role("button", name="تأكيد الاسترداد").click()
        expect(page.get_by_test_id("refunded")).to_contain_text("٢٫٥٠")
        return amount_text, hijri
    (amount_text, hijri), _ = await dash.run(scenario, session=session)
    assert "١٠٠٫٠٠" in amount_text and not LATIN_DIGITS.search(amount_text)
    assert ARABIC_DIGITS.search(hijri) and "هـ" in hijri
    status, body = await dash.api("GET", f"/api/payments/{p['id']}")
    assert body["amount_refunded"] == 250


async def test_view_only_sees_no_refund(dash):
    p = await dash.pay(5000, "SAR")
    session = await dash.member_session(["view_only"])

    def scenario(page):
        page.goto(f"{dash.base}/dashboard/payments/{p['id']}?lang=en")
        page.get_by_test_id("amount").wait_for()
        nav = page.get_by_role("navigation").inner_text()
        return page.get_by_role("button", name="Refund").count(), nav
    (refunds, nav), _ = await dash.run(scenario, session=session)
    assert refunds == 0
    assert "Payments" in nav and "Balance" not in nav and "Developers" not in nav


async def test_dispute_evidence_with_a_file(dash, tmp_path):
    await dash.pay(10000, "SAR", number=DISPUTE_CARD)
    await run_until(dash.clock, dash.merchant_id, dash.clock.now() + timedelta(days=1))   # the dispute opens
    status, listed = await dash.api("GET", "/api/disputes")
    assert status == 200 and listed["data"], listed
    dispute = listed["data"][0]
    pdf = tmp_path / "receipt.pdf"
    pdf.write_bytes(PDF)
    session = await dash.owner_session()

    def scenario(page):
        page.goto(f"{dash.base}/dashboard/disputes/{dispute['id']}?lang=ar")
        assert _h1(page) == "النزاعات"
        expect(page.get_by_label("الأدلة")).to_be_visible()
        expect(page.get_by_label("إرفاق ملف")).to_be_visible()
        expect(page.get_by_role("button", name="إرسال الأدلة")).to_be_visible()
        page.goto(f"{dash.base}/dashboard/disputes?lang=en")
        page.get_by_role("link", name=dispute["id"]).click()
        page.wait_for_url(re.compile(f"/dashboard/disputes/{dispute['id']}$"))
        assert _h1(page) == "Disputes"
        page.get_by_label("Evidence").fill("Delivered on time; signed by the buyer.")
        page.get_by_label("Attach file").set_input_files(str(pdf))
        expect(page.get_by_test_id("evidence-files")).to_contain_text("receipt.pdf")
        page.get_by_role("button", name="Submit evidence").click()
        expect(page.get_by_role("status")).to_contain_text("under review")
    await dash.run(scenario, session=session)
    status, d = await dash.api("GET", f"/api/disputes/{dispute['id']}")
    assert d["status"] == "under_review", d
    assert [f["filename"] for f in d["evidence"]["files"]] == ["receipt.pdf"]
    assert d["evidence"]["uncategorized_text"] == "Delivered on time; signed by the buyer."


async def test_the_invitation_link_accepts_then_signs_in(dash):
    email = "new.member@example.com"
    status, inv = await dash.api("POST", "/api/team/invites", {"email": email, "roles": ["developer"]},
                                 token=await dash.owner_token())
    assert status == 201, inv
    mail = [m for m in dash.mailer.sent if m.to == email][-1]
    link = re.search(r"https?://\S+/dashboard/accept-invite\?token=[A-Za-z0-9_\-]+", mail.text).group(0)

    def scenario(page):
        page.goto(re.sub(r"^https?://[^/]+", dash.base, link) + "&lang=ar")
        assert _h1(page) == "الانضمام إلى الفريق"
        page.get_by_role("button", name="قبول الدعوة").click()
        page.get_by_role("link", name="تسجيل الدخول").click()
        page.wait_for_url(re.compile(r"/dashboard/login\?email="))
        return page.get_by_label("البريد الإلكتروني").input_value()
    prefilled, _ = await dash.run(scenario)
    assert prefilled == email


@pytest.mark.skipif(not AXE.exists(), reason="axe-core is not installed: cd dashboard && npm ci")
@pytest.mark.parametrize("lang", ["en", "ar"])
async def test_no_critical_or_serious_axe_violation(dash, lang):
    p = await dash.pay(2000, "KWD")
    session = await dash.owner_session()

    def scenario(page):
        out = {}
        for path in ("", "payments", f"payments/{p['id']}", "disputes", "balance"):
            page.goto(f"{dash.base}/dashboard/{path}?lang={lang}")
            _h1(page)
            page.wait_for_function("() => !document.querySelector('[data-loading]')")
            out[path] = axe_violations(page, ("critical", "serious"))
        page.goto(f"{dash.base}/dashboard/payments/{p['id']}")
        page.get_by_role("button", name={"en": "Refund", "ar": "استرداد"}[lang]).click()
        page.wait_for_selector("dialog[open]")
        out["refund dialog"] = axe_violations(page, ("critical", "serious"))
        page.goto(f"{dash.base}/dashboard/login")
        page.context.clear_cookies()
        page.goto(f"{dash.base}/dashboard/login")
        _h1(page)
        out["login"] = axe_violations(page, ("critical", "serious"))
        return out
    found, _ = await dash.run(scenario, session=session)
    assert all(v == [] for v in found.values()), found


async def test_home_numbers_equal_the_analytics_of_the_local_today(dash):
    await dash.pay(15000, "SAR")
    await dash.pay(5000, "SAR")
    status, declined = await dash.api("POST", "/api/payments/create", {
        "amount": 7000, "currency": "SAR",
        "payment_method": {"type": "card", "card": {"number": "4000000000000002", "exp_month": 12, "exp_year": 2030, "cvc": "123"}}})
    assert status == 402, declined
    today = (await dash.gql("{ viewer { today timeZone } }"))["viewer"]
    status, analytics = await dash.api("GET", f"/api/analytics?from={today['today']}&to={today['today']}")
    assert status == 200, analytics
    session = await dash.owner_session()

    def scenario(page):
        page.goto(dash.base + "/dashboard/?lang=en")
        assert _h1(page) == "Home"
        page.get_by_test_id("volume").wait_for()
        return page.get_by_test_id("volume").inner_text(), page.get_by_test_id("success-rate").inner_text()
    (volume, rate), _ = await dash.run(scenario, session=session)
    assert today["timeZone"] == "Asia/Kuwait"
    assert (analytics["volume"], analytics["currency"], analytics["approval_rate"]) == (20000, "SAR", 66.67)
    assert "SAR\u00a0200.00" in volume
    assert "\n66.67%\n" in rate and "2 of 3 approved" in rate


async def test_turkish_amounts_are_written_1_234_56(dash):
    await dash.pay(123456, "TRY")
    session = await dash.owner_session()

    def scenario(page):
        page.goto(dash.base + "/dashboard/payments?lang=tr")
        assert _h1(page) == "Ödemeler"
        page.wait_for_selector("tbody tr")
        return page.locator("tbody tr td").nth(1).inner_text()
    amount, _ = await dash.run(scenario, session=session)
    assert amount == "₺1.234,56"


async def test_keyboard_only_sign_in_and_refund(dash):
    p = await dash.pay(3000, "SAR")
    loop = asyncio.get_running_loop()

    async def _read_otp():
        return _otp(dash.mailer, dash.email)

    def tab_to(page, name: str, limit: int = 40) -> None:
        for _ in range(limit):
            page.keyboard.press("Tab")
            if page.evaluate("() => (document.activeElement.innerText || document.activeElement.getAttribute('aria-label') || '').trim()") == name:
                return
        raise AssertionError(f"{name!r} is not reachable with Tab")

    def scenario(page):
        page.goto(f"{dash.base}/dashboard/payments/{p['id']}?lang=en")
        page.wait_for_url(re.compile("/dashboard/login"))
        page.get_by_label("Email").wait_for()
        page.keyboard.type(dash.email)          # the field has the focus
        tab_to(page, "Send code")
        page.keyboard.press("Enter")
        page.get_by_label("Code", exact=True).wait_for()
        page.keyboard.type(asyncio.run_coroutine_threadsafe(_read_otp(), loop).result(timeout=30))
        page.keyboard.press("Enter")
        page.wait_for_url(re.compile(f"/dashboard/payments/{p['id']}"))
        page.get_by_test_id("amount").wait_for()
        tab_to(page, "Refund")
        page.keyboard.press("Enter")
        expect(page.get_by_role("dialog")).to_be_visible()
        page.keyboard.press("Control+A")
        page.keyboard.type("10")
        tab_to(page, "Confirm refund")
        page.keyboard.press("Enter")
        expect(page.get_by_test_id("refunded")).to_have_text("SAR\u00a010.00")
    await dash.run(scenario)
    status, body = await dash.api("GET", f"/api/payments/{p['id']}")
    assert body["amount_refunded"] == 1000


async def test_the_merchant_switcher_opens_a_session_on_another_merchant(dash):
    from models.team import Member
    from services.identity import auth
    from services.identity.merchants import create_merchant
    other, _ = await create_merchant(email=f"other-{dash.merchant_id[-6:]}@example.com", name="Bazaar Istanbul")
    other_owner = (await auth.open_session(await Member.get(merchant_id=other.id, email=other.email))).token
    status, inv = await dash.api("POST", "/api/team/invites", {"email": dash.email, "roles": ["view_only"]},
                                 token=other_owner)
    assert status == 201, inv
    mail = [m for m in dash.mailer.sent if m.to == dash.email][-1]
    token = re.search(r"accept-invite\?token=([A-Za-z0-9_\-]+)", mail.text).group(1)
    status, accepted = await dash.api("POST", "/api/team/invites/accept", {"token": token})
    assert status == 200, accepted
    session = await dash.owner_session()

    def scenario(page):
        page.goto(dash.base + "/dashboard/?lang=en")
        switcher = page.get_by_role("combobox", name="Merchant")
        expect(switcher).to_have_value(dash.merchant_id)
        switcher.select_option(other.id)
        page.wait_for_url(re.compile(r"/dashboard$"))
        expect(page.get_by_role("combobox", name="Merchant")).to_have_value(other.id)
        nav = page.get_by_role("navigation").inner_text()
        return nav
    nav, _ = await dash.run(scenario, session=session)
    assert "Balance" not in nav     # view_only on the other merchant


def _major(minor: int, decimals: int) -> str:
    """1234567, 2 -> '12,345.67' (the expected English text, from integers)."""
    sign, minor = ("-" if minor < 0 else ""), abs(minor)
    whole, frac = divmod(minor, 10 ** decimals)
    return f"{sign}{whole:,}.{frac:0{decimals}d}"


async def test_balance_equals_the_api(dash):
    await dash.pay(123456, "SAR")
    await dash.pay(7005, "KWD")
    status, balance = await dash.api("GET", "/api/balance")
    assert status == 200, balance
    session = await dash.owner_session()

    def scenario(page):
        page.goto(dash.base + "/dashboard/balance?lang=en")
        assert _h1(page) == "Balance"
        page.get_by_test_id("balance").wait_for()
        return {c: page.locator(f"tr[data-currency={c}] td").all_inner_texts() for c in ("SAR", "KWD")}
    shown, _ = await dash.run(scenario, session=session)
    for kind, column in (("available", 0), ("pending", 1)):
        for b in balance[kind]:
            decimals = 3 if b["currency"] == "KWD" else 2
            assert shown[b["currency"]][column] == f"{b['currency']}\u00a0{_major(b['amount'], decimals)}", (kind, b, shown)
    assert any(b["amount"] for b in balance["pending"] + balance["available"])
