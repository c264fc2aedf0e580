/** Status words the API returns (payments, disputes, settlements, invoices, e-invoices). */
import { catalog } from '../i18n/types';

export default catalog({
  en: {
    'status.succeeded': 'Succeeded', 'status.disputed': 'Disputed', 'status.captured': 'Captured', 'status.failed': 'Failed', 'status.declined': 'Declined', 'status.pending': 'Pending',
    'status.authorized': 'Authorized', 'status.refunded': 'Refunded', 'status.partially_refunded': 'Partially refunded',
    'status.voided': 'Voided', 'status.canceled': 'Canceled', 'status.requires_action': 'Requires action',
    'status.needs_response': 'Needs response', 'status.under_review': 'Under review', 'status.won': 'Won', 'status.lost': 'Lost',
    'status.in_transit': 'In transit', 'status.paid': 'Paid', 'status.draft': 'Draft', 'status.open': 'Open', 'status.void': 'Void',
    'status.sent': 'Sent', 'status.accepted': 'Accepted', 'status.rejected': 'Rejected', 'status.reported': 'Reported',
    'status.valid': 'Valid', 'status.invalid': 'Invalid', 'status.queued': 'Queued', 'status.cleared': 'Cleared',
  },
  ar: {
    'status.succeeded': 'ناجحة', 'status.disputed': 'معترض عليها', 'status.captured': 'محصّلة', 'status.failed': 'فاشلة', 'status.declined': 'مرفوضة', 'status.pending': 'قيد الانتظار',
    'status.authorized': 'مصرّح بها', 'status.refunded': 'مستردة', 'status.partially_refunded': 'مستردة جزئيًا',
    'status.voided': 'ملغاة', 'status.canceled': 'ملغاة', 'status.requires_action': 'تتطلب إجراءً',
    'status.needs_response': 'بحاجة إلى رد', 'status.under_review': 'قيد المراجعة', 'status.won': 'مكسوب', 'status.lost': 'خاسر',
    'status.in_transit': 'قيد التحويل', 'status.paid': 'مدفوعة', 'status.draft': 'مسودة', 'status.open': 'مفتوحة', 'status.void': 'ملغاة',
    'status.sent': 'مرسلة', 'status.accepted': 'مقبولة', 'status.rejected': 'مرفوضة', 'status.reported': 'مبلّغ عنها',
    'status.valid': 'صالحة', 'status.invalid': 'غير صالحة', 'status.queued': 'في الطابور', 'status.cleared': 'مقاصة',
  },
  tr: {
    'status.succeeded': 'Başarılı', 'status.disputed': 'İtiraz edildi', 'status.captured': 'Tahsil edildi', 'status.failed': 'Başarısız', 'status.declined': 'Reddedildi', 'status.pending': 'Beklemede',
    'status.authorized': 'Provizyonlu', 'status.refunded': 'İade edildi', 'status.partially_refunded': 'Kısmen iade edildi',
    'status.voided': 'İptal edildi', 'status.canceled': 'İptal edildi', 'status.requires_action': 'İşlem gerekli',
    'status.needs_response': 'Yanıt bekliyor', 'status.under_review': 'İncelemede', 'status.won': 'Kazanıldı', 'status.lost': 'Kaybedildi',
    'status.in_transit': 'Yolda', 'status.paid': 'Ödendi', 'status.draft': 'Taslak', 'status.open': 'Açık', 'status.void': 'Geçersiz',
    'status.sent': 'Gönderildi', 'status.accepted': 'Kabul edildi', 'status.rejected': 'Reddedildi', 'status.reported': 'Raporlandı',
    'status.valid': 'Geçerli', 'status.invalid': 'Geçersiz', 'status.queued': 'Sırada', 'status.cleared': 'Takas edildi',
  },
});
