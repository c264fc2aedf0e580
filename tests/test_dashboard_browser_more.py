"""The dashboard's second half in a real headless browser (tests/dashboard_fixtures.py): customers,
the CRM deals board, invoices, developers (API keys, webhooks), team, security (2FA, sessions) and
the audit log, in Arabic and English. Each page has its one h1 (its menu word), shows the API's
numbers and has no critical or serious axe-core violation; an API key is created in the page, its
secret shown once and working on /api; a member is invited (the mail arrives); two-factor sign-in
is turned on with an authenticator code at the test clock's time; a view_only member sees no
"Create API key"; the audit log shows the refund and the key. Every scenario asserts that the page
called /graphql only and logged no error."""
from __future__ import annotations

import re

import aiohttp
import pyotp
import pytest
from playwright.sync_api import expect

from services import webhooks
from tests.dashboard_fixtures import AXE, axe_violations, browser, dash, needs_browser  # noqa: F401
from tests.webhooks_fixtures import emit, receiver  # noqa: F401

pytestmark = needs_browser

ARABIC_DIGITS = re.compile(r"[\u0660-\u0669]")
LATIN_DIGITS = re.compile(r"[0-9]")

READY = {"customers": "tr[data-customer-id]", "crm/deals": "[data-deal-id]", "invoices": "tr[data-invoice-id]",
         "developers": "tr[data-key-id]", "settings/team": "tr[data-member-id]", "settings/security": "tr[data-current]",
         "settings/audit": "tr[data-audit-id]"}   # a page's data has arrived

PAGES = {  # path -> (en, ar) menu word = the page's h1
    "customers": ("Customers", "العملاء"),
    "crm/deals": ("Deals", "الصفقات"),
    "invoices": ("Invoices", "الفواتير"),
    "developers": ("Developers", "المطورون"),
    "settings/team": ("Team", "الفريق"),
    "settings/security": ("Security", "الأمان"),
    "settings/audit": ("Audit log", "سجل التدقيق"),
}


def _h1(page) -> str:
    page.wait_for_selector("h1")
    assert page.locator("h1").count() == 1
    return page.locator("h1").inner_text().strip()


def _kwd(minor: int) -> str:
    """KWD in the dashboard's English: three decimals, grouped."""
    return f"KWD\u00a0{minor // 1000:,}.{minor % 1000:03d}"


async def _seed(d) -> dict:
    """A customer, an invoice for it, a CRM deal (through the member's /graphql) and a refund by the owner."""
    token = await d.owner_token()
    status, cus = await d.api("POST", "/api/customers", {"name": "Layla Haddad", "email": "layla@example.com",
                                                        "phone": "+96550123456"})
    assert status == 200, cus
    status, other = await d.api("POST", "/api/customers", {"name": "Omar Saleh", "email": "omar@example.com"})
    assert status == 200, other
    status, inv = await d.api("POST", "/api/invoices", {"customer_id": cus["id"], "currency": "KWD",
                                                       "items": [{"name": "Dates", "amount": 12345, "quantity": 2}]})
    assert status == 200, inv
    data = await d.gql('mutation { crmCustomerCreate(input: {name: "Dar Al Souq"}) { customer { id } userErrors { code } } }',
                       token=token)
    ccu = data["crmCustomerCreate"]["customer"]["id"]
    data = await d.gql("""mutation($input: DealCreateInput!) { dealCreate(input: $input) {
                            deal { id value currency probability stage } userErrors { code message } } }""",
                       {"input": {"title": "Ramadan hampers", "customerId": ccu, "value": 250500, "currency": "KWD",
                                  "stage": "proposal", "probability": 40}}, token=token)
    deal = data["dealCreate"]["deal"]
    assert deal, data
    p = await d.pay(5000, "KWD")
    status, refund = await d.api("POST", f"/api/payments/{p['id']}/refund", {"amount": 1250}, token=token)
    assert status == 200, refund
    return {"customer": cus, "other": other, "invoice": inv, "deal": deal, "payment": p}


@pytest.mark.parametrize("lang", ["ar", "en"])
async def test_each_page_has_one_h1_and_the_apis_numbers(dash, lang):
    seed = await _seed(dash)
    session = await dash.owner_session()
    inv = seed["invoice"]

    def scenario(page):
        h1s, out, axe = {}, {}, {}
        for i, (path, words) in enumerate(PAGES.items()):
            page.goto(f"{dash.base}/dashboard/{path}" + (f"?lang={lang}" if i == 0 else ""))
            h1s[path] = _h1(page)
            page.wait_for_selector(READY[path])
            if AXE.exists():     # axe-core bundled from npm (dashboard/node_modules); skipped without it
                axe[path] = axe_violations(page, ("critical", "serious"))
            assert page.locator("html").get_attribute("lang") == lang
            assert page.locator("html").get_attribute("dir") == ("rtl" if lang == "ar" else "ltr")
            nav = page.get_by_role("navigation")
            expect(nav.get_by_role("link", name=words[0 if lang == "en" else 1], exact=True)).to_be_visible()
            if path == "customers":
                page.wait_for_selector(f"tr[data-customer-id='{seed['customer']['id']}']")
                out["customers"] = sorted(page.eval_on_selector_all("tbody tr", "rs => rs.map(r => r.dataset.customerId)"))
                out["customer_row"] = page.locator(f"tr[data-customer-id='{seed['customer']['id']}']").inner_text()
            elif path == "crm/deals":
                card = page.locator(f"[data-stage=proposal] [data-deal-id='{seed['deal']['id']}']")
                card.wait_for()
                out["deal_value"] = card.get_by_test_id("deal-value").inner_text()
                out["deal_probability"] = card.get_by_test_id("deal-probability").inner_text()
            elif path == "invoices":
                row = page.locator(f"tr[data-invoice-id='{inv['id']}']")
                row.wait_for()
                out["invoice_total"] = row.get_by_test_id("invoice-total").inner_text()
                out["invoice_row"] = row.inner_text()
                out["pdf"] = row.get_by_role("link", name="PDF", exact=True).get_attribute("href")
            elif path == "developers":
                expect(page.get_by_role("link", name="GraphiQL")).to_have_attribute("href", "/graphql")
                out["create_key"] = page.get_by_role("button", name="Create API key" if lang == "en" else "إنشاء مفتاح API").count()
            elif path == "settings/team":
                page.wait_for_selector("tr[data-member-id]")
                out["members"] = page.locator("tr[data-member-id]").inner_text()
            elif path == "settings/security":
                page.wait_for_selector("tr[data-current]")
                out["sessions"] = page.locator("tr[data-session-id]").count()
            elif path == "settings/audit":
                page.wait_for_selector("tr[data-action='refund.created']")
                out["refund_actor"] = page.locator("tr[data-action='refund.created']").first.inner_text()
        return h1s, out, axe
    (h1s, out, axe), _ = await dash.run(scenario, session=session, timeout_ms=30000)
    assert {p: v for p, v in axe.items() if v} == {}, "no critical or serious axe-core violation"
    assert h1s == {p: w[0 if lang == "en" else 1] for p, w in PAGES.items()}
    assert out["customers"] == sorted([seed["customer"]["id"], seed["other"]["id"]])
    assert "layla@example.com" in out["customer_row"] and "+96550123456" in out["customer_row"]
    assert inv["total"] == 24690 and out["pdf"] == inv["pdf_url"]
    assert out["create_key"] == 1
    assert dash.email in out["members"]
    assert out["sessions"] >= 1
    assert dash.email in out["refund_actor"]
    if lang == "en":
        assert out["invoice_total"] == _kwd(inv["total"]) == "KWD\u00a024.690"
        assert out["deal_value"] == _kwd(250500) and out["deal_probability"] == "40%"
        assert inv["number"] in out["invoice_row"]
    else:   # Arabic-Indic digits, three decimals
        for text in (out["invoice_total"], out["deal_value"], out["deal_probability"]):
            assert ARABIC_DIGITS.search(text) and not LATIN_DIGITS.search(text), text
        assert "٢٤٫٦٩٠" in out["invoice_total"] and "٢٥٠٫٥٠٠" in out["deal_value"] and "٤٠" in out["deal_probability"]


async def test_customers_search_by_email_lives_in_the_address(dash):
    seed = await _seed(dash)
    session = await dash.owner_session()

    def scenario(page):
        page.goto(f"{dash.base}/dashboard/customers?lang=en")
        page.wait_for_selector("tr[data-customer-id]")
        page.get_by_label("Customer e-mail").fill("omar@example.com")
        page.get_by_role("button", name="Search", exact=True).click()
        page.wait_for_url(re.compile(r"email=omar%40example\.com"))
        page.wait_for_function("() => document.querySelectorAll('tbody tr').length === 1")
        return page.eval_on_selector_all("tbody tr", "rs => rs.map(r => r.dataset.customerId)")
    found, _ = await dash.run(scenario, session=session)
    assert found == [seed["other"]["id"]]


async def test_api_key_secret_shown_once_works_on_the_api_and_is_audited(dash):
    await _seed(dash)
    session = await dash.owner_session()

    def scenario(page):
        page.goto(f"{dash.base}/dashboard/developers?lang=en")
        page.get_by_role("button", name="Create API key").click()
        dialog = page.get_by_role("dialog")
        dialog.get_by_label("Name").fill("Warehouse sync")
        dialog.get_by_role("button", name="Create", exact=True).click()
        secret = dialog.get_by_test_id("api-key-secret").inner_text()
        dialog.get_by_role("button", name="Done").click()
        expect(dialog).to_be_hidden()
        expect(page.locator("tr[data-key-id]", has_text="Warehouse sync")).to_be_visible()
        shown_after = secret in page.content()
        page.reload()
        page.wait_for_selector("tr[data-key-id]")
        shown_reload = secret in page.content()
        # The audit log, filtered in the address.
        page.goto(f"{dash.base}/dashboard/settings/audit?action=api_key.created")
        assert _h1(page) == "Audit log"
        page.wait_for_selector("tr[data-action='api_key.created']")
        expect(page.get_by_label("Action")).to_have_value("api_key.created")
        actions = page.eval_on_selector_all("tbody tr", "rs => rs.map(r => r.dataset.action)")
        row = page.locator("tr[data-action='api_key.created']").first.inner_text()
        page.get_by_label("Action").select_option("refund.created")
        page.get_by_role("button", name="Apply").click()
        page.wait_for_url(re.compile(r"action=refund\.created"))
        page.wait_for_selector("tr[data-action='refund.created']")
        refunds = page.eval_on_selector_all("tbody tr", "rs => rs.map(r => r.dataset.action)")
        # The actor's e-mail filters by that actor (in the address).
        page.locator("tr[data-action='refund.created']").get_by_role("link", name=dash.email).click()
        page.wait_for_url(re.compile(r"\?actor=mbr_"))
        page.wait_for_selector("tr[data-action='api_key.created']")
        actors = set(page.eval_on_selector_all("tbody tr td:nth-child(2)", "cs => cs.map(c => c.innerText.trim())"))
        return secret, shown_after, shown_reload, actions, row, refunds, actors
    (secret, shown_after, shown_reload, actions, row, refunds, actors), _ = await dash.run(scenario, session=session)
    assert secret.startswith("sk_test_")
    assert not shown_after and not shown_reload, "the secret is shown once"
    status, body = await dash.api("GET", "/api/balance", token=secret)
    assert status == 200, body
    assert actions == ["api_key.created"] and dash.email in row and "API key created" in row
    assert refunds == ["refund.created"]
    assert actors == {dash.email}


async def test_revoke_an_api_key(dash):
    session = await dash.owner_session()
    data = await dash.gql('mutation { apiKeyCreate(input: {name: "Old POS"}) { key apiKey { id } } }',
                          token=await dash.owner_token())
    key, key_id = data["apiKeyCreate"]["key"], data["apiKeyCreate"]["apiKey"]["id"]

    def scenario(page):
        page.goto(f"{dash.base}/dashboard/developers?lang=en")
        page.once("dialog", lambda d: d.accept())
        page.get_by_role("button", name="Revoke Old POS").click()
        expect(page.locator(f"tr[data-key-id='{key_id}']")).to_contain_text("Revoked")
        return page.get_by_role("button", name="Revoke Old POS").count()
    left, _ = await dash.run(scenario, session=session)
    assert left == 0
    status, _ = await dash.api("GET", "/api/balance", token=key)
    assert status == 401


async def test_view_only_sees_no_create_api_key(dash):
    session = await dash.member_session(["view_only"])

    def scenario(page):
        page.goto(f"{dash.base}/dashboard/developers?lang=en")
        assert _h1(page) == "Developers"
        page.wait_for_selector("main")
        create = page.get_by_role("button", name="Create API key").count()
        page.goto(f"{dash.base}/dashboard/customers")
        page.wait_for_selector("h1")
        return create, page.get_by_role("navigation").inner_text()
    (create, nav), _ = await dash.run(scenario, session=session)
    assert create == 0
    assert "Customers" in nav and "Developers" not in nav and "Team" not in nav


async def test_invite_a_member_the_mail_arrives_and_change_roles(dash):
    other = await dash.member_session(["view_only"], email="support.agent@example.com")
    session = await dash.owner_session()
    email = "new.analyst@example.com"

    def scenario(page):
        page.goto(f"{dash.base}/dashboard/settings/team?lang=en")
        assert _h1(page) == "Team"
        form = page.locator("form", has=page.get_by_role("button", name="Send invitation"))
        form.get_by_label("Email").fill(email)
        form.get_by_label("View only").uncheck()
        form.get_by_label("Analyst", exact=True).check()
        form.get_by_role("button", name="Send invitation").click()
        expect(page.get_by_role("status")).to_contain_text(f"Invitation sent to {email}")
        expect(page.locator("tr[data-invite-id]", has_text=email)).to_contain_text("Pending")
        # Change the other member's roles (keyboard-reachable dialog).
        page.get_by_role("button", name="Change roles of support.agent@example.com").click()
        dialog = page.get_by_role("dialog")
        dialog.get_by_label("Support").check()
        dialog.get_by_label("View only").uncheck()
        dialog.get_by_role("button", name="Save").click()
        expect(dialog).to_be_hidden()
        roles = page.locator("tr[data-member-id]", has_text="support.agent@example.com").get_by_test_id("member-roles")
        expect(roles).to_contain_text("Support")
        expect(roles).not_to_contain_text("View only")
    await dash.run(scenario, session=session)
    mail = [m for m in dash.mailer.sent if m.to == email]
    assert mail and re.search(r"/dashboard/accept-invite\?token=", mail[-1].text)
    status, invites = await dash.api("GET", "/api/team/invites", token=await dash.owner_token())
    assert [(i["email"], i["roles"]) for i in invites["data"] if i["email"] == email] == [(email, ["analyst"])]
    data = await dash.gql("{ teamMembers { edges { node { email roles } } } }", token=await dash.owner_token())
    roles = {e["node"]["email"]: e["node"]["roles"] for e in data["teamMembers"]["edges"]}
    assert roles["support.agent@example.com"] == ["support"]
    assert other.cookie


async def test_two_factor_enrol_and_confirm_with_the_test_clock(dash):
    session = await dash.owner_session()

    def scenario(page):
        page.goto(f"{dash.base}/dashboard/settings/security?lang=en")
        assert _h1(page) == "Security"
        page.get_by_role("button", name="Set up two-factor sign-in").click()
        secret = page.get_by_test_id("totp-secret").inner_text()
        qr = page.get_by_role("img", name="QR code for your authenticator app").get_attribute("src")
        page.get_by_label("Authenticator code").fill(pyotp.TOTP(secret).at(int(dash.clock.time())))
        page.get_by_role("button", name="Turn on").click()
        page.get_by_test_id("recovery-codes").locator("li").first.wait_for()
        codes = page.get_by_test_id("recovery-codes").locator("li").all_inner_texts()
        page.get_by_role("button", name="I saved them").click()
        expect(page.get_by_text("Two-factor sign-in is on.")).to_be_visible()
        shown_again = any(c in page.content() for c in codes)
        return secret, qr, codes, shown_again
    (secret, qr, codes, shown_again), _ = await dash.run(scenario, session=session)
    assert re.fullmatch(r"[A-Z2-7]+=*", secret)
    assert qr.startswith("data:image/")
    assert len(codes) >= 5 and not shown_again
    data = await dash.gql("{ viewer { member { twoFactorEnabled } } }", token=await dash.owner_token())
    assert data["viewer"]["member"]["twoFactorEnabled"] is True

    # Turn it off again with the next code.
    dash.clock.advance(seconds=30)

    def turn_off(page):
        page.goto(f"{dash.base}/dashboard/settings/security?lang=en")
        page.get_by_label("Authenticator code").fill(pyotp.TOTP(secret).at(int(dash.clock.time())))
        page.get_by_role("button", name="Turn off two-factor sign-in").click()
        expect(page.get_by_role("button", name="Set up two-factor sign-in")).to_be_visible()
    await dash.run(turn_off, session=session)
    data = await dash.gql("{ viewer { member { twoFactorEnabled } } }", token=await dash.owner_token())
    assert data["viewer"]["member"]["twoFactorEnabled"] is False


async def test_sessions_sign_out_the_others(dash):
    session = await dash.owner_session()
    other = await dash.owner_session()

    def scenario(page):
        page.goto(f"{dash.base}/dashboard/settings/security?lang=ar")
        assert _h1(page) == "الأمان"
        page.wait_for_selector("tr[data-current]")
        before = page.locator("tr[data-session-id]").count()
        page.get_by_role("button", name="تسجيل الخروج من الجلسات الأخرى").click()
        expect(page.get_by_role("status")).to_be_visible()
        page.wait_for_function("() => document.querySelectorAll('tr[data-session-id]').length === 1")
        # The member's digits: Latin in Arabic, applied at once and saved.
        page.get_by_label("شكل الأرقام").select_option("latn")
        page.get_by_role("button", name="حفظ").click()
        expect(page.get_by_text("تم الحفظ.")).to_be_visible()
        return before, page.locator("tr[data-current] time").first.inner_text()
    (before, seen_at), _ = await dash.run(scenario, session=session)
    assert before >= 2
    assert LATIN_DIGITS.search(seen_at) and not ARABIC_DIGITS.search(seen_at), seen_at
    data = await dash.gql("{ viewer { member { language digits } } }", token=await dash.owner_token())
    assert data["viewer"]["member"] == {"language": "ar", "digits": "latn"}
    # The other cookie no longer signs in; this one still does.
    async with aiohttp.ClientSession() as s:
        for sess, ok in ((other, False), (session, True)):
            async with s.post(dash.base + "/graphql", json={"query": "{ viewer { member { id } } }"},
                              headers={"Cookie": f"qafila_session={sess.cookie}", "X-CSRF-Token": sess.csrf_token}) as r:
                body = await r.json()
                assert bool((body.get("data") or {}).get("viewer") and body["data"]["viewer"]["member"]) is ok, body


async def test_deals_board_create_and_move_by_keyboard(dash):
    session = await dash.owner_session()

    def scenario(page):
        page.goto(f"{dash.base}/dashboard/crm/deals?lang=en")
        assert _h1(page) == "Deals"
        page.get_by_role("button", name="New deal").click()
        dialog = page.get_by_role("dialog")
        dialog.get_by_label("Title").fill("Eid boxes")
        dialog.get_by_label("Customer name").fill("Bayt Al Tamr")
        dialog.get_by_label("Value").fill("1.250")
        dialog.get_by_label("Probability (%)").fill("60")
        dialog.get_by_role("button", name="Create", exact=True).click()
        expect(dialog).to_be_hidden()
        card = page.locator("[data-stage=lead] [data-deal-id]", has_text="Eid boxes")
        expect(card).to_be_visible()
        deal_id = card.get_attribute("data-deal-id")
        value = card.get_by_test_id("deal-value").inner_text()
        select = card.get_by_label("Stage of Eid boxes")
        select.focus()
        select.select_option("negotiation")
        moved = page.locator(f"[data-stage=negotiation] [data-deal-id='{deal_id}']")
        expect(moved).to_be_visible()
        return deal_id, value, moved.get_by_test_id("deal-probability").inner_text()
    (deal_id, value, probability), _ = await dash.run(scenario, session=session)
    assert value == "KWD\u00a01.250"
    data = await dash.gql("query($id: ID!) { crm { deal(id: $id) { stage value currency probability } } }",
                          {"id": deal_id}, token=await dash.owner_token())
    deal = data["crm"]["deal"]
    assert (deal["stage"], deal["value"], deal["currency"]) == ("negotiation", 1250, "KWD")
    assert probability == f"{deal['probability']}%"   # the stage's move may set its probability: the page shows the API's


async def test_webhook_event_attempts_and_retry(dash, receiver):  # noqa: F811
    status, body = await dash.api("POST", "/api/webhooks/configure", {"url": receiver.url(), "events": ["*"]})
    assert status == 200, body
    receiver.default = 500
    ev = await emit(dash.merchant_id)
    await webhooks.run_once(owner="t", merchant_id=dash.merchant_id)
    for delay in webhooks.RETRY_DELAYS:
        dash.clock.advance(seconds=delay)
        await webhooks.run_once(owner="t", merchant_id=dash.merchant_id)
    receiver.default = 200
    session = await dash.owner_session()

    def scenario(page):
        page.goto(f"{dash.base}/dashboard/developers?lang=en")
        item = page.locator(f"li[data-event-id='{ev.id}']")
        expect(item).to_contain_text("Failed")
        item.get_by_role("button", name="Attempts").click()
        item.locator("tr[data-attempt]").first.wait_for()
        attempts = item.locator("tr[data-attempt]").count()
        item.get_by_role("button", name="Retry").click()
        expect(item.locator("tr[data-attempt]")).to_have_count(attempts + 1)
        return attempts
    attempts, _ = await dash.run(scenario, session=session)
    assert attempts == 8
    status, got = await dash.api("GET", f"/api/webhooks/events/{ev.id}")
    assert status == 200 and got["delivered"] is True, got


async def test_invoice_with_a_zatca_credit_note(dash):
    from tests.test_zatca_api import ONBOARD
    status, body = await dash.api("PUT", "/api/merchant", {"country": "SA"})
    assert status == 200, body
    status, unit = await dash.api("POST", "/api/einvoicing/zatca/onboard", ONBOARD)
    assert status == 200, unit
    status, cus = await dash.api("POST", "/api/customers", {"name": "Nura Stores", "email": "nura@example.com"})
    assert status == 200, cus
    status, inv = await dash.api("POST", "/api/invoices", {"customer_id": cus["id"], "currency": "SAR", "tax_rate": 15,
                                                          "items": [{"name": "Saffron", "amount": 10000, "quantity": 1}]})
    assert status == 200, inv
    status, inv = await dash.api("PUT", f"/api/invoices/{inv['id']}/mark-paid")
    assert status == 200, inv
    status, note = await dash.api("POST", f"/api/invoices/{inv['id']}/credit-notes", {"amount": 2300, "reason": "One jar broken"})
    assert status == 200, note
    session = await dash.owner_session()

    def scenario(page):
        page.goto(f"{dash.base}/dashboard/invoices?lang=en")
        row = page.locator(f"tr[data-invoice-id='{inv['id']}']")
        row.wait_for()
        return (row.get_by_test_id("invoice-total").inner_text(), row.locator(f"[data-note-id='{note['id']}']").inner_text(),
                row.inner_text())
    (total, note_text, row), _ = await dash.run(scenario, session=session)
    assert total == f"SAR\u00a0{inv['total'] // 100:,}.{inv['total'] % 100:02d}" == "SAR\u00a0115.00"
    assert "Credit note" in note_text and note["number"] in note_text and "SAR\u00a023.00" in note_text
    assert "ZATCA" in row and "Paid" in row


async def test_key_dialog_in_turkish_traps_focus_and_escape_closes(dash):
    session = await dash.owner_session()

    def scenario(page):
        page.goto(f"{dash.base}/dashboard/developers?lang=tr")
        assert _h1(page) == "Geliştiriciler"
        page.get_by_role("button", name="API anahtarı oluştur").click()
        dialog = page.get_by_role("dialog")
        expect(dialog.get_by_label("Ad", exact=True)).to_be_focused()
        for _ in range(5):
            page.keyboard.press("Tab")
            assert page.evaluate("() => !!document.activeElement.closest('dialog')")
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
        # Keyboard only: focus is back on the opener; Enter opens it again, then type and create.
        expect(page.get_by_role("button", name="API anahtarı oluştur")).to_be_focused()
        page.keyboard.press("Enter")
        page.keyboard.type("Klavye")
        page.keyboard.press("Enter")
        expect(dialog.get_by_test_id("api-key-secret")).to_be_visible()
        return dialog.get_by_role("button", name="Oluştur", exact=True).count()
    create_buttons, _ = await dash.run(scenario, session=session)
    assert create_buttons == 0     # the secret replaced the form
    status, keys = await dash.api("GET", "/api/api-keys")
    assert status == 200 and "Klavye" in [k["name"] for k in keys["data"]], keys


async def test_changing_roles_asks_an_owner_with_2fa_to_step_up(dash):
    token = await dash.owner_token()
    status, enrolled = await dash.api("POST", "/api/me/two-factor/enroll", token=token)
    assert status == 200, enrolled
    status, body = await dash.api("POST", "/api/me/two-factor/confirm",
                                  {"code": pyotp.TOTP(enrolled["secret"]).at(int(dash.clock.time()))}, token=token)
    assert status == 200, body
    dash.clock.advance(seconds=30)
    await dash.member_session(["view_only"], email="clerk@example.com")
    session = await dash.owner_session()

    def scenario(page):
        page.goto(f"{dash.base}/dashboard/settings/team?lang=en")
        page.get_by_role("button", name="Change roles of clerk@example.com").click()
        dialog = page.get_by_role("dialog")
        dialog.get_by_label("Accountant").check()
        dialog.get_by_role("button", name="Save").click()
        step = page.get_by_role("dialog", name="Confirm it's you")
        step.get_by_label("Authenticator code").fill(pyotp.TOTP(enrolled["secret"]).at(int(dash.clock.time())))
        step.get_by_role("button", name="Confirm").click()
        # the roles cell itself (the row also holds the closed roles dialog, whose labels name every role)
        expect(step).to_be_hidden()
        expect(page.locator("tr[data-member-id]", has_text="clerk@example.com")
               .get_by_test_id("member-roles")).to_contain_text("Accountant")
    await dash.run(scenario, session=session)
    data = await dash.gql("{ teamMembers { edges { node { email roles } } } }", token=await dash.owner_token())
    roles = {e["node"]["email"]: e["node"]["roles"] for e in data["teamMembers"]["edges"]}
    assert sorted(roles["clerk@example.com"]) == ["accountant", "view_only"]
