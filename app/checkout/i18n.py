"""Every label of the hosted checkout, receipt and error pages: one dictionary per locale (en,
tr, ar). Templates only ever print `t.<key>`; a key missing in a locale is a test failure."""
from __future__ import annotations

from services.payments import installment_text, locales, methods

LOCALES = locales.LOCALES
RTL = {"ar"}

EN = {
    "title_pay": "Pay {merchant}", "pay_to": "Payment to", "amount": "Amount", "description": "Description",
    "invoice": "Invoice", "item": "Item", "quantity": "Qty", "card_details": "Card details",
    "card_number": "Card number", "expiry": "Expiry (MM/YY)", "cvc": "CVC", "name_on_card": "Name on card",
    "contact_title": "Where should we send your receipt? (optional)", "email": "E-mail", "phone": "Phone (with country code)",
    "pay_button": "Pay {amount}", "processing_wait": "Processing…", "test_mode": "Test mode: no real money moves.",
    "secure_note": "Card details go straight to the payment service; the merchant never sees them.",
    "success_title": "Payment successful", "success_body": "Thank you. {merchant} received {amount}.",
    "payment_id": "Payment", "view_receipt": "View receipt", "declined_title": "Payment declined",
    "try_another": "Try again or use another card.",
    "challenge_title": "3-D Secure verification", "challenge_body": "Your bank asks you to confirm this payment "
    "of {amount} to {merchant} with the card ending {last4}.", "challenge_sandbox": "Sandbox bank: choose the result.",
    "challenge_approve": "Approve", "challenge_fail": "Fail authentication",
    "challenge_done": "Verification finished. You can close this window.",
    "crypto_title": "Pay with {asset} ({network})", "crypto_send": "Send exactly", "crypto_address": "to this address",
    "crypto_rate_lock": "Rate locked for", "crypto_rate_expired": "The rate lock expired: a new quote is made when you confirm.",
    "crypto_sent": "I have sent the payment", "crypto_waiting": "Waiting for your deposit to be confirmed on the network.",
    "cod_title": "Cash on delivery", "cod_body": "Pay {amount} in cash to the courier at:",
    "cod_confirm": "Confirm order", "cod_confirmed": "Your order is confirmed. Pay the courier on delivery.",
    "qr_title": "Scan to pay on your phone", "qr_or_card": "or pay here by card:",
    "processing_title": "Payment in progress",
    "gone_title": "This payment is no longer available",
    "gone_paid": "It has already been paid.", "gone_cancelled": "It was cancelled by the merchant.",
    "gone_expired": "It has expired.", "gone_hint": "Ask the merchant for a new payment link.",
    "notfound_title": "Payment not found", "notfound_body": "Check the address, or ask the merchant for a new link.",
    "forbidden_title": "This form has expired", "forbidden_body": "Reload the page and try again.",
    "receipt_title": "Receipt", "receipt_from": "Receipt from {merchant}", "receipt_date": "Date",
    "receipt_method": "Paid with", "receipt_status": "Status", "receipt_print": "Print",
    "card_ending": "{brand} ending {last4}", "status_succeeded": "Paid", "status_captured": "Paid",
    "status_refunded": "Refunded", "method_crypto": "Crypto", "method_cod": "Cash on delivery", "method_qr": "QR",
    "method_tap_to_pay": "Tap to pay", "method_card": "Card", "method_apple_pay": "Apple Pay", "method_google_pay": "Google Pay", "method_bank_transfer": "Bank transfer",
    "error_title": "Please check the form", "error_generic": "Something went wrong. Please try again.",
    "decline_card_declined": "The card was declined by the bank.",
    "decline_insufficient_funds": "The card has insufficient funds.",
    "decline_authentication_failed": "3-D Secure verification failed.",
    "decline_authentication_required": "The bank requires 3-D Secure verification.",
    "decline_risk_declined": "The payment was declined for your protection.",
    "decline_processing_error": "The bank could not process the card.",
    "decline_expired_card": "The card has expired.", "decline_generic": "The payment was declined.",
    "language": "Language", "too_many_title": "Too many attempts",
    "too_many": "Too many payment attempts from your connection. Wait a minute and try again.",
}

TR = {
    "title_pay": "{merchant} ödemesi", "pay_to": "Ödeme alıcısı", "amount": "Tutar", "description": "Açıklama",
    "invoice": "Fatura", "item": "Kalem", "quantity": "Adet", "card_details": "Kart bilgileri",
    "card_number": "Kart numarası", "expiry": "Son kullanma (AA/YY)", "cvc": "CVC", "name_on_card": "Kart üzerindeki isim",
    "contact_title": "Makbuzunuzu nereye gönderelim? (isteğe bağlı)", "email": "E-posta",
    "phone": "Telefon (ülke koduyla)", "pay_button": "{amount} öde", "processing_wait": "İşleniyor…",
    "test_mode": "Test modu: gerçek para hareket etmez.",
    "secure_note": "Kart bilgileri doğrudan ödeme hizmetine gider; satıcı bunları görmez.",
    "success_title": "Ödeme başarılı", "success_body": "Teşekkürler. {merchant}, {amount} tutarını aldı.",
    "payment_id": "Ödeme", "view_receipt": "Makbuzu görüntüle", "declined_title": "Ödeme reddedildi",
    "try_another": "Tekrar deneyin veya başka bir kart kullanın.",
    "challenge_title": "3-D Secure doğrulaması", "challenge_body": "Bankanız, sonu {last4} ile biten kartla "
    "{merchant} için {amount} tutarındaki bu ödemeyi onaylamanızı istiyor.",
    "challenge_sandbox": "Test bankası: sonucu seçin.", "challenge_approve": "Onayla",
    "challenge_fail": "Doğrulamayı başarısız yap", "challenge_done": "Doğrulama tamamlandı. Bu pencereyi kapatabilirsiniz.",
    "crypto_title": "{asset} ({network}) ile öde", "crypto_send": "Tam olarak gönderin", "crypto_address": "bu adrese",
    "crypto_rate_lock": "Kur sabitleme süresi", "crypto_rate_expired": "Kur sabitlemesi doldu: onayladığınızda yeni kur verilir.",
    "crypto_sent": "Ödemeyi gönderdim", "crypto_waiting": "Yatırımınızın ağda onaylanması bekleniyor.",
    "cod_title": "Kapıda ödeme", "cod_body": "{amount} tutarını kuryeye nakit olarak şu adreste ödeyin:",
    "cod_confirm": "Siparişi onayla", "cod_confirmed": "Siparişiniz onaylandı. Teslimatta kuryeye ödeyin.",
    "qr_title": "Telefonunuzla ödemek için tarayın", "qr_or_card": "veya burada kartla ödeyin:",
    "processing_title": "Ödeme işleniyor",
    "gone_title": "Bu ödeme artık kullanılamıyor", "gone_paid": "Zaten ödendi.",
    "gone_cancelled": "Satıcı tarafından iptal edildi.", "gone_expired": "Süresi doldu.",
    "gone_hint": "Satıcıdan yeni bir ödeme bağlantısı isteyin.",
    "notfound_title": "Ödeme bulunamadı", "notfound_body": "Adresi kontrol edin veya satıcıdan yeni bir bağlantı isteyin.",
    "forbidden_title": "Bu formun süresi doldu", "forbidden_body": "Sayfayı yenileyip tekrar deneyin.",
    "receipt_title": "Makbuz", "receipt_from": "{merchant} makbuzu", "receipt_date": "Tarih",
    "receipt_method": "Ödeme yöntemi", "receipt_status": "Durum", "receipt_print": "Yazdır",
    "card_ending": "Sonu {last4} olan {brand}", "status_succeeded": "Ödendi", "status_captured": "Ödendi",
    "status_refunded": "İade edildi", "method_crypto": "Kripto", "method_cod": "Kapıda ödeme", "method_qr": "QR",
    "method_tap_to_pay": "Temassız", "method_card": "Kart", "method_apple_pay": "Apple Pay", "method_google_pay": "Google Pay", "method_bank_transfer": "Havale",
    "error_title": "Lütfen formu kontrol edin", "error_generic": "Bir sorun oluştu. Lütfen tekrar deneyin.",
    "decline_card_declined": "Kart banka tarafından reddedildi.",
    "decline_insufficient_funds": "Kartın bakiyesi yetersiz.",
    "decline_authentication_failed": "3-D Secure doğrulaması başarısız oldu.",
    "decline_authentication_required": "Banka 3-D Secure doğrulaması istiyor.",
    "decline_risk_declined": "Ödeme, güvenliğiniz için reddedildi.",
    "decline_processing_error": "Banka kartı işleyemedi.", "decline_expired_card": "Kartın süresi dolmuş.",
    "decline_generic": "Ödeme reddedildi.", "language": "Dil", "too_many_title": "Çok fazla deneme",
    "too_many": "Bağlantınızdan çok fazla ödeme denemesi yapıldı. Bir dakika bekleyip tekrar deneyin.",
}

AR = {
    "title_pay": "الدفع إلى {merchant}", "pay_to": "الدفع إلى", "amount": "المبلغ", "description": "الوصف",
    "invoice": "فاتورة", "item": "البند", "quantity": "الكمية", "card_details": "بيانات البطاقة",
    "card_number": "رقم البطاقة", "expiry": "تاريخ الانتهاء (شهر/سنة)", "cvc": "رمز التحقق",
    "name_on_card": "الاسم على البطاقة", "contact_title": "أين نرسل إيصالك؟ (اختياري)",
    "email": "البريد الإلكتروني", "phone": "الهاتف (مع رمز الدولة)", "pay_button": "ادفع {amount}",
    "processing_wait": "جارٍ المعالجة…",
    "test_mode": "وضع الاختبار: لا تنتقل أموال حقيقية.",
    "secure_note": "تذهب بيانات البطاقة مباشرة إلى خدمة الدفع؛ لا يراها التاجر.",
    "success_title": "تم الدفع بنجاح", "success_body": "شكرًا لك. استلم {merchant} مبلغ {amount}.",
    "payment_id": "الدفعة", "view_receipt": "عرض الإيصال", "declined_title": "تم رفض الدفع",
    "try_another": "حاول مرة أخرى أو استخدم بطاقة أخرى.",
    "challenge_title": "التحقق ثلاثي الأبعاد", "challenge_body": "يطلب منك مصرفك تأكيد هذه الدفعة بمبلغ "
    "{amount} إلى {merchant} بالبطاقة المنتهية بـ {last4}.", "challenge_sandbox": "مصرف تجريبي: اختر النتيجة.",
    "challenge_approve": "موافقة", "challenge_fail": "إفشال التحقق",
    "challenge_done": "اكتمل التحقق. يمكنك إغلاق هذه النافذة.",
    "crypto_title": "ادفع بعملة {asset} ({network})", "crypto_send": "أرسل بالضبط", "crypto_address": "إلى هذا العنوان",
    "crypto_rate_lock": "السعر مثبت لمدة", "crypto_rate_expired": "انتهى تثبيت السعر: يُحسب سعر جديد عند التأكيد.",
    "crypto_sent": "لقد أرسلت الدفعة", "crypto_waiting": "بانتظار تأكيد إيداعك على الشبكة.",
    "cod_title": "الدفع عند الاستلام", "cod_body": "ادفع {amount} نقدًا لمندوب التوصيل على العنوان:",
    "cod_confirm": "تأكيد الطلب", "cod_confirmed": "تم تأكيد طلبك. ادفع لمندوب التوصيل عند الاستلام.",
    "qr_title": "امسح الرمز للدفع من هاتفك", "qr_or_card": "أو ادفع هنا بالبطاقة:",
    "processing_title": "الدفع قيد المعالجة",
    "gone_title": "هذه الدفعة لم تعد متاحة", "gone_paid": "تم دفعها بالفعل.", "gone_cancelled": "ألغاها التاجر.",
    "gone_expired": "انتهت صلاحيتها.", "gone_hint": "اطلب من التاجر رابط دفع جديدًا.",
    "notfound_title": "الدفعة غير موجودة", "notfound_body": "تحقق من العنوان أو اطلب من التاجر رابطًا جديدًا.",
    "forbidden_title": "انتهت صلاحية هذا النموذج", "forbidden_body": "أعد تحميل الصفحة وحاول مرة أخرى.",
    "receipt_title": "إيصال", "receipt_from": "إيصال من {merchant}", "receipt_date": "التاريخ",
    "receipt_method": "طريقة الدفع", "receipt_status": "الحالة", "receipt_print": "طباعة",
    "card_ending": "{brand} المنتهية بـ {last4}", "status_succeeded": "مدفوع", "status_captured": "مدفوع",
    "status_refunded": "مسترد", "method_crypto": "عملة رقمية", "method_cod": "الدفع عند الاستلام", "method_qr": "رمز QR",
    "method_tap_to_pay": "الدفع باللمس", "method_card": "بطاقة", "method_apple_pay": "Apple Pay", "method_google_pay": "Google Pay", "method_bank_transfer": "تحويل مصرفي",
    "error_title": "يرجى التحقق من النموذج", "error_generic": "حدث خطأ. يرجى المحاولة مرة أخرى.",
    "decline_card_declined": "رفض المصرف البطاقة.", "decline_insufficient_funds": "رصيد البطاقة غير كافٍ.",
    "decline_authentication_failed": "فشل التحقق ثلاثي الأبعاد.",
    "decline_authentication_required": "يطلب المصرف التحقق ثلاثي الأبعاد.",
    "decline_risk_declined": "رُفضت الدفعة حمايةً لك.", "decline_processing_error": "تعذر على المصرف معالجة البطاقة.",
    "decline_expired_card": "انتهت صلاحية البطاقة.", "decline_generic": "تم رفض الدفع.", "language": "اللغة",
    "too_many_title": "محاولات كثيرة جدًا",
    "too_many": "محاولات دفع كثيرة جدًا من اتصالك. انتظر دقيقة ثم حاول مرة أخرى.",
}

# ---- local payment methods (issue 23): the choices, the scheme sandbox pages, Fawry and STC Pay
EN.update({
    "choose_method": "Pay with", "pay_with": "Pay with {method}", "sandbox_note": "Sandbox {scheme}: no real money moves.",
    "sandbox_pay_to": "{amount} to {merchant}", "sandbox_bank": "Bank", "sandbox_pin": "PIN",
    "sandbox_submit": "Submit", "sandbox_cancel": "Cancel",
    "sandbox_values": "Sandbox: card 8888 8800 0000 0001 with PIN 1234 approves; 8888 8800 0000 0002 is declined.",
    "sandbox_finished": "This payment is already finished.",
    "fawry_title": "Pay at any Fawry outlet", "receipt_paid_where": "Paid at", "fawry_paid_outlet": "A Fawry outlet, in cash", "fawry_reference": "Fawry reference",
    "fawry_body": "Give this reference number and {amount} in cash at a Fawry kiosk, shop or ATM, or pay it in the "
                  "myFawry app, before {expires}.", "fawry_get": "Get a Fawry reference",
    "stcpay_phone": "STC Pay mobile number (+9665…)", "stcpay_send": "Send me a code",
    "stcpay_code": "One-time code sent to {hint}", "stcpay_verify": "Verify and pay",
    "stcpay_sandbox": "Sandbox: code 123456 approves.",
    "decline_NOT CAPTURED": "The bank did not approve the payment.", "decline_CANCELED": "The payment was canceled.",
    "decline_expired": "The reference expired before it was paid.",
    "decline_invalid_otp": "The code is wrong.", "decline_otp_attempts_exceeded": "Too many wrong codes.",
    "attempts_left": "{n} attempt(s) left.",
})
TR.update({
    "choose_method": "Ödeme yöntemi", "pay_with": "{method} ile öde", "sandbox_note": "Test {scheme}: gerçek para hareket etmez.",
    "sandbox_pay_to": "{merchant} için {amount}", "sandbox_bank": "Banka", "sandbox_pin": "PIN",
    "sandbox_submit": "Gönder", "sandbox_cancel": "İptal",
    "sandbox_values": "Test: 8888 8800 0000 0001 kartı ve 1234 PIN onaylanır; 8888 8800 0000 0002 reddedilir.",
    "sandbox_finished": "Bu ödeme zaten tamamlandı.",
    "fawry_title": "Herhangi bir Fawry noktasında ödeyin", "receipt_paid_where": "Ödeme yeri", "fawry_paid_outlet": "Bir Fawry noktası, nakit", "fawry_reference": "Fawry referansı",
    "fawry_body": "{expires} tarihinden önce bu referans numarasını ve {amount} nakiti bir Fawry noktasına verin "
                  "veya myFawry uygulamasında ödeyin.", "fawry_get": "Fawry referansı al",
    "stcpay_phone": "STC Pay cep telefonu (+9665…)", "stcpay_send": "Kod gönder",
    "stcpay_code": "{hint} numarasına gönderilen tek kullanımlık kod", "stcpay_verify": "Doğrula ve öde",
    "stcpay_sandbox": "Test: 123456 kodu onaylanır.",
    "decline_NOT CAPTURED": "Banka ödemeyi onaylamadı.", "decline_CANCELED": "Ödeme iptal edildi.",
    "decline_expired": "Referans ödenmeden süresi doldu.",
    "decline_invalid_otp": "Kod yanlış.", "decline_otp_attempts_exceeded": "Çok fazla yanlış kod.",
    "attempts_left": "{n} deneme hakkı kaldı.",
})
AR.update({
    "choose_method": "طريقة الدفع", "pay_with": "ادفع عبر {method}", "sandbox_note": "{scheme} التجريبي: لا تنتقل أموال حقيقية.",
    "sandbox_pay_to": "{amount} إلى {merchant}", "sandbox_bank": "المصرف", "sandbox_pin": "الرقم السري",
    "sandbox_submit": "إرسال", "sandbox_cancel": "إلغاء",
    "sandbox_values": "تجريبي: البطاقة 8888 8800 0000 0001 مع الرقم السري 1234 مقبولة؛ 8888 8800 0000 0002 مرفوضة.",
    "sandbox_finished": "انتهت هذه الدفعة بالفعل.",
    "fawry_title": "ادفع في أي منفذ فوري", "receipt_paid_where": "مكان الدفع", "fawry_paid_outlet": "منفذ فوري، نقدًا", "fawry_reference": "الرقم المرجعي لفوري",
    "fawry_body": "قدّم هذا الرقم المرجعي ومبلغ {amount} نقدًا في أي منفذ أو متجر أو صراف فوري، أو ادفعه في تطبيق "
                  "myFawry، قبل {expires}.", "fawry_get": "احصل على رقم مرجعي من فوري",
    "stcpay_phone": "رقم جوال STC Pay (+9665…)", "stcpay_send": "أرسل لي الرمز",
    "stcpay_code": "رمز لمرة واحدة أُرسل إلى {hint}", "stcpay_verify": "تحقق وادفع",
    "stcpay_sandbox": "تجريبي: الرمز 123456 مقبول.",
    "decline_NOT CAPTURED": "لم يوافق المصرف على الدفعة.", "decline_CANCELED": "أُلغيت الدفعة.",
    "decline_expired": "انتهت صلاحية الرقم المرجعي قبل دفعه.",
    "decline_invalid_otp": "الرمز غير صحيح.", "decline_otp_attempts_exceeded": "رموز خاطئة كثيرة جدًا.",
    "attempts_left": "المحاولات المتبقية: {n}.",
})
# ---- the method choice (issue 35): what each flow does next, the test-mode notice of the method
# chosen, built from the registry's sandbox values (`sbx_<key>`; a key without a label prints as is)
EN.update({
    "flow_redirect": "You continue on the {method} page of your bank to pay.",
    "flow_reference": "You get a reference number to pay in cash at any {method} outlet.",
    "flow_otp": "We send a one-time code to your {method} mobile number.",
    "test_values": "{method}: {values}.", "list_sep": ", ", "part_sep": "; ",
    "sbx_approved": "approved", "sbx_declined": "declined", "sbx_three_d_secure": "3-D Secure",
    "sbx_approved_co_badged_visa": "approved, with Visa", "sbx_insufficient_funds": "insufficient funds",
    "sbx_pin": "PIN {value}", "sbx_phone": "phone {value}", "sbx_otp": "code {value} approves",
    "sbx_attempts": "{value} tries", "sbx_pay": "the merchant pays the reference with {value}",
    "sbx_expires_in_hours": "it expires after {value} hours",
    # STC Pay's failing codes; Troy's and Meeza's test cards (issue 46)
    "sbx_failing_otps": "codes that fail: {value}", "sbx_daily_limit_exceeded": "daily limit exceeded",
    "sbx_transaction_limit_exceeded": "transaction limit exceeded", "sbx_timeout": "timeout",
    "sbx_approved_credit_axess": "approved, Akbank credit, Axess",
    "sbx_approved_credit_cardfinans": "approved, QNB credit, CardFinans", "sbx_approved_debit": "approved, debit",
    "sbx_approved_prepaid": "approved, prepaid", "sbx_approved_global_credit_world": "approved, Troy Global credit, World",
    "sbx_approved_global_debit": "approved, Troy Global debit", "sbx_approved_2": "approved",
    "sbx_expired_card": "expired card",
})
TR.update({
    "flow_redirect": "Ödemek için bankanızın {method} sayfasına geçersiniz.",
    "flow_reference": "Herhangi bir {method} noktasında nakit ödemek için bir referans numarası alırsınız.",
    "flow_otp": "{method} cep telefonunuza tek kullanımlık bir kod göndeririz.",
    "test_values": "{method}: {values}.", "list_sep": ", ", "part_sep": "; ",
    "sbx_approved": "onay", "sbx_declined": "ret", "sbx_three_d_secure": "3-D Secure",
    "sbx_approved_co_badged_visa": "onay, Visa ile", "sbx_insufficient_funds": "yetersiz bakiye",
    "sbx_pin": "PIN {value}", "sbx_phone": "telefon {value}", "sbx_otp": "{value} kodu onaylanır",
    "sbx_attempts": "{value} deneme", "sbx_pay": "satıcı referansı {value} ile öder",
    "sbx_expires_in_hours": "süresi {value} saatte dolar",
    "sbx_failing_otps": "başarısız olan kodlar: {value}", "sbx_daily_limit_exceeded": "günlük limit aşıldı",
    "sbx_transaction_limit_exceeded": "işlem limiti aşıldı", "sbx_timeout": "zaman aşımı",
    "sbx_approved_credit_axess": "onay, Akbank kredi kartı, Axess",
    "sbx_approved_credit_cardfinans": "onay, QNB kredi kartı, CardFinans", "sbx_approved_debit": "onay, banka kartı",
    "sbx_approved_prepaid": "onay, ön ödemeli kart",
    "sbx_approved_global_credit_world": "onay, Troy Global kredi kartı, World",
    "sbx_approved_global_debit": "onay, Troy Global banka kartı", "sbx_approved_2": "onay",
    "sbx_expired_card": "süresi dolmuş kart",
})
AR.update({
    "flow_redirect": "تنتقل إلى صفحة {method} في مصرفك لتدفع.",
    "flow_reference": "تحصل على رقم مرجعي لتدفع نقدًا في أي منفذ {method}.",
    "flow_otp": "نرسل رمزًا لمرة واحدة إلى رقم جوالك في {method}.",
    "test_values": "{method}: {values}.", "list_sep": "، ", "part_sep": "؛ ",
    "sbx_approved": "مقبولة", "sbx_declined": "مرفوضة", "sbx_three_d_secure": "التحقق ثلاثي الأبعاد",
    "sbx_approved_co_badged_visa": "مقبولة، مع فيزا", "sbx_insufficient_funds": "رصيد غير كافٍ",
    "sbx_pin": "الرقم السري {value}", "sbx_phone": "الهاتف {value}", "sbx_otp": "الرمز {value} مقبول",
    "sbx_attempts": "{value} محاولات", "sbx_pay": "يدفع التاجر الرقم المرجعي عبر {value}",
    "sbx_expires_in_hours": "تنتهي صلاحيته بعد {value} ساعة",
    "sbx_failing_otps": "رموز تُرفض: {value}", "sbx_daily_limit_exceeded": "تجاوز الحد اليومي",
    "sbx_transaction_limit_exceeded": "تجاوز حد العملية", "sbx_timeout": "انتهت المهلة",
    "sbx_approved_credit_axess": "مقبولة، بطاقة ائتمان أكبنك، Axess",
    "sbx_approved_credit_cardfinans": "مقبولة، بطاقة ائتمان QNB، CardFinans", "sbx_approved_debit": "مقبولة، بطاقة خصم",
    "sbx_approved_prepaid": "مقبولة، بطاقة مسبقة الدفع",
    "sbx_approved_global_credit_world": "مقبولة، بطاقة ائتمان تروي جلوبال، World",
    "sbx_approved_global_debit": "مقبولة، بطاقة خصم تروي جلوبال", "sbx_approved_2": "مقبولة",
    "sbx_expired_card": "بطاقة منتهية الصلاحية",
})
# The method names come from the one registry (services.payments.methods).
for _lang, _labels in (("en", EN), ("tr", TR), ("ar", AR)):
    for _m in methods.METHODS.values():
        _labels.setdefault(f"method_{_m.type}", _m.names[_lang])

STRINGS: dict[str, dict[str, str]] = {"en": EN, "tr": TR, "ar": AR}


class Labels(dict):
    """The labels of one locale; `t.key` in templates, `t.fmt(key, **values)` to fill one in."""

    def __getattr__(self, key: str) -> str:
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def fmt(self, key: str, **values) -> str:
        return self[key].format(**values)

    def decline(self, code: str | None) -> str:
        return self.get(f"decline_{code}") or self["decline_generic"]


def labels(locale: str) -> Labels:
    return Labels(STRINGS.get(locale, EN))


def pick_locale(*, explicit: str | None, query: str | None, accept_language: str | None,
                country: str | None = None) -> str:
    """The merchant's choice (`explicit`: the intent's, link's or invoice's locale) first, then the
    buyer's (`?locale=`, then Accept-Language by quality), then the default language of the
    merchant's market (`country`); a page without a merchant (a 404) falls back to English."""
    default = locales.merchant_default(country) if country else "en"
    return locales.pick(explicit=explicit, query=query, accept_language=accept_language, default=default)

# Installments (taksit) on the checkout, success page and receipt (issue 24).
INSTALLMENT_LABELS: dict[str, dict[str, str]] = {
    "en": {"inst_title": "Pay in installments", "inst_bank": "{bank} · {program}", "inst_count": "Installments",
           "inst_each": "Per installment", "inst_total": "Total", "inst_single": "Single payment",
           "inst_n": "{count} installments",
           "inst_choose": "Choose the number of installments",
           "inst_pay": "Pay", "inst_card": "Card ending {last4}", "inst_commission": "Installment commission"},
    "tr": {"inst_title": "Taksit seçenekleri", "inst_bank": "{bank} · {program}", "inst_count": "Taksit sayısı",
           "inst_each": "Taksit tutarı", "inst_total": "Toplam", "inst_single": "Tek çekim",
           "inst_n": "{count} taksit",
           "inst_choose": "Taksit sayısını seçin",
           "inst_pay": "Öde", "inst_card": "Son dört hanesi {last4} olan kart", "inst_commission": "Vade farkı"},
    "ar": {"inst_title": "الدفع بالتقسيط", "inst_bank": "{bank} · {program}", "inst_count": "عدد الأقساط",
           "inst_each": "قيمة القسط", "inst_total": "الإجمالي", "inst_single": "دفعة واحدة",
           "inst_n": "{count} أقساط",
           "inst_choose": "اختر عدد الأقساط",
           "inst_pay": "ادفع", "inst_card": "البطاقة المنتهية بـ {last4}", "inst_commission": "عمولة التقسيط"},
}
for _locale, _extra in INSTALLMENT_LABELS.items():
    STRINGS[_locale].update(_extra)
    STRINGS[_locale].update(installment_text.LINE_TEXTS[_locale])     # the line the receipt message says too

# SADAD bills and request to pay (CliQ, Aani) on the checkout (issue 46): the choose form, the bill
# panel (bill number, biller code, expiry), the request-to-pay panel (alias, QR code, expiry) and
# the sandbox values of the registry (`sbx_<key>`).
REGIONAL_LABELS: dict[str, dict[str, str]] = {
    "en": {"sadad_get": "Get a SADAD bill number", "sadad_title": "Pay this bill through SADAD in your bank",
           "sadad_biller": "Biller code", "sadad_reference": "Bill number",
           "sadad_body": "In your bank's app, online banking or ATM, choose SADAD payments, pick the biller by its "
                         "code and enter the bill number to pay {amount} before {expires}.",
           "sadad_sandbox": "Sandbox: the merchant pays the bill with POST /api/test-helpers/sadad/pay; "
                            "a 500.00 SAR bill is never paid.",
           "rtp_send": "Send the {method} request to pay", "rtp_title": "Approve the {method} request in your bank's app",
           "rtp_sent": "We sent the request to pay to your {method} alias", "rtp_scan": "Scan this code with your bank's app to pay with {method}.",
           "rtp_body": "The request for {amount} expires at {expires}.",
           "rtp_sandbox": "Sandbox: the merchant approves with POST /api/test-helpers/request-to-pay/approve "
                          "or rejects with POST /api/test-helpers/request-to-pay/reject.",
           "check_result": "I have paid: check the payment", "rtp_alias": "Your alias (optional)",
           "cliq_alias": "CliQ alias or Jordanian mobile number (optional)",
           "aani_alias": "Aani mobile number, UAE (optional)",
           "hint_sadad": "You get a {method} bill number to pay in your bank's app, online banking or ATM.",
           "flow_request_to_pay": "Your bank's app gets a {method} request to pay: approve it there, or scan its QR code.",
           "decline_rtp_rejected": "The request to pay was rejected in the bank's app.",
           "decline_sadad_declined": "The bank declined to pay the bill.",
           "sbx_biller_code": "biller code {value}", "sbx_never_pays": "never paid", "sbx_amount": "amount {value} (minor units)",
           "sbx_aliases": "aliases", "sbx_nickname": "nickname {value}", "sbx_mobile": "mobile {value}",
           "sbx_expires_in_minutes": "it expires after {value} minutes", "sbx_approve": "approve with {value}",
           "sbx_reject": "reject with {value}"},
    "tr": {"sadad_get": "SADAD fatura numarası al", "sadad_title": "Bu faturayı bankanızda SADAD ile ödeyin",
           "sadad_biller": "Fatura kurumu kodu", "sadad_reference": "Fatura numarası",
           "sadad_body": "Bankanızın uygulamasında, internet şubesinde veya ATM'de SADAD ödemelerini seçin, kurumu "
                         "koduyla bulun ve {expires} tarihinden önce {amount} ödemek için fatura numarasını girin.",
           "sadad_sandbox": "Test: satıcı faturayı POST /api/test-helpers/sadad/pay ile öder; "
                            "500.00 SAR tutarındaki fatura hiç ödenmez.",
           "rtp_send": "{method} ödeme isteğini gönder", "rtp_title": "{method} isteğini bankanızın uygulamasında onaylayın",
           "rtp_sent": "Ödeme isteğini {method} takma adınıza gönderdik", "rtp_scan": "{method} ile ödemek için bu kodu bankanızın uygulamasıyla tarayın.",
           "rtp_body": "{amount} tutarındaki istek {expires} tarihinde sona erer.",
           "rtp_sandbox": "Test: satıcı POST /api/test-helpers/request-to-pay/approve ile onaylar "
                          "veya POST /api/test-helpers/request-to-pay/reject ile reddeder.",
           "check_result": "Ödedim: ödemeyi kontrol et", "rtp_alias": "Takma adınız (isteğe bağlı)",
           "cliq_alias": "CliQ takma adı veya Ürdün cep telefonu (isteğe bağlı)",
           "aani_alias": "Aani cep telefonu, BAE (isteğe bağlı)",
           "hint_sadad": "Bankanızın uygulamasında, internet şubesinde veya ATM'de ödemek için bir {method} fatura numarası alırsınız.",
           "flow_request_to_pay": "Bankanızın uygulamasına bir {method} ödeme isteği gelir: orada onaylayın ya da QR kodunu tarayın.",
           "decline_rtp_rejected": "Ödeme isteği bankanın uygulamasında reddedildi.",
           "decline_sadad_declined": "Banka faturayı ödemeyi reddetti.",
           "sbx_biller_code": "kurum kodu {value}", "sbx_never_pays": "hiç ödenmez", "sbx_amount": "tutar {value} (küçük birim)",
           "sbx_aliases": "takma adlar", "sbx_nickname": "takma ad {value}", "sbx_mobile": "cep {value}",
           "sbx_expires_in_minutes": "süresi {value} dakikada dolar", "sbx_approve": "{value} ile onaylanır",
           "sbx_reject": "{value} ile reddedilir"},
    "ar": {"sadad_get": "احصل على رقم فاتورة سداد", "sadad_title": "ادفع هذه الفاتورة عبر سداد في مصرفك",
           "sadad_biller": "رمز المفوتر", "sadad_reference": "رقم الفاتورة",
           "sadad_body": "من تطبيق مصرفك أو الخدمات المصرفية عبر الإنترنت أو الصراف الآلي، اختر مدفوعات سداد، ثم "
                         "اختر المفوتر برمزه وأدخل رقم الفاتورة لدفع {amount} قبل {expires}.",
           "sadad_sandbox": "تجريبي: يدفع التاجر الفاتورة عبر POST /api/test-helpers/sadad/pay؛ "
                            "فاتورة بمبلغ 500.00 ريال لا تُدفع أبدًا.",
           "rtp_send": "أرسل طلب الدفع عبر {method}", "rtp_title": "وافق على طلب {method} في تطبيق مصرفك",
           "rtp_sent": "أرسلنا طلب الدفع إلى اسمك المستعار في {method}", "rtp_scan": "امسح هذا الرمز بتطبيق مصرفك لتدفع عبر {method}.",
           "rtp_body": "ينتهي طلب دفع {amount} في {expires}.",
           "rtp_sandbox": "تجريبي: يوافق التاجر عبر POST /api/test-helpers/request-to-pay/approve "
                          "أو يرفض عبر POST /api/test-helpers/request-to-pay/reject.",
           "check_result": "دفعت: تحقق من الدفعة", "rtp_alias": "اسمك المستعار (اختياري)",
           "cliq_alias": "الاسم المستعار في كليك أو رقم جوال أردني (اختياري)",
           "aani_alias": "رقم الجوال في آني، الإمارات (اختياري)",
           "hint_sadad": "تحصل على رقم فاتورة {method} لتدفعها من تطبيق مصرفك أو عبر الإنترنت أو الصراف الآلي.",
           "flow_request_to_pay": "يصل طلب دفع عبر {method} إلى تطبيق مصرفك: وافق عليه هناك أو امسح رمز QR.",
           "decline_rtp_rejected": "رُفض طلب الدفع في تطبيق المصرف.",
           "decline_sadad_declined": "رفض المصرف دفع الفاتورة.",
           "sbx_biller_code": "رمز المفوتر {value}", "sbx_never_pays": "لا تُدفع أبدًا", "sbx_amount": "المبلغ {value} (بالوحدة الصغرى)",
           "sbx_aliases": "الأسماء المستعارة", "sbx_nickname": "الاسم المستعار {value}", "sbx_mobile": "الجوال {value}",
           "sbx_expires_in_minutes": "تنتهي صلاحيته بعد {value} دقيقة", "sbx_approve": "الموافقة عبر {value}",
           "sbx_reject": "الرفض عبر {value}"},
}
for _locale, _extra in REGIONAL_LABELS.items():
    STRINGS[_locale].update(_extra)
