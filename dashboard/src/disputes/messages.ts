import { catalog } from '../i18n/types';

export default catalog({
  en: {
    'disputes.col.id': 'Dispute', 'disputes.col.payment': 'Payment', 'disputes.col.amount': 'Amount', 'disputes.col.reason': 'Reason',
    'disputes.col.status': 'Status', 'disputes.col.due': 'Evidence due', 'disputes.empty': 'No dispute.',
    'disputes.back': 'All disputes', 'disputes.detail': 'Dispute {id}', 'disputes.fee': 'Fee', 'disputes.opened': 'Opened',
    'disputes.evidence': 'Evidence', 'disputes.evidenceHint': 'What happened: delivery, conversations, policy.',
    'disputes.attachFile': 'Attach file', 'disputes.fileHint': 'PDF, PNG or JPEG, at most {size} KiB; up to {count} files.', 'disputes.reason.fraudulent': 'Fraudulent',
    'disputes.files': 'Attached files', 'disputes.noFiles': 'No file yet.', 'disputes.attached': '{name} attached.',
    'disputes.fileTooLarge': '{name} is larger than {size} KiB.', 'disputes.fileType': '{name} is not a PDF, PNG or JPEG.',
    'disputes.submit': 'Submit evidence', 'disputes.submitted': 'Evidence submitted: the dispute is under review.',
    'disputes.closed': 'This dispute no longer takes evidence.', 'disputes.submittedText': 'Submitted text',
  },
  ar: {
    'disputes.col.id': 'النزاع', 'disputes.col.payment': 'الدفعة', 'disputes.col.amount': 'المبلغ', 'disputes.col.reason': 'السبب',
    'disputes.col.status': 'الحالة', 'disputes.col.due': 'موعد تقديم الأدلة', 'disputes.empty': 'لا توجد نزاعات.',
    'disputes.back': 'كل النزاعات', 'disputes.detail': 'النزاع {id}', 'disputes.fee': 'الرسوم', 'disputes.opened': 'فُتح',
    'disputes.evidence': 'الأدلة', 'disputes.evidenceHint': 'ماذا حدث: التسليم، المراسلات، السياسة.',
    'disputes.attachFile': 'إرفاق ملف', 'disputes.fileHint': 'PDF أو PNG أو JPEG، بحد أقصى {size} كيلوبايت؛ حتى {count} ملفات.', 'disputes.reason.fraudulent': 'احتيال',
    'disputes.files': 'الملفات المرفقة', 'disputes.noFiles': 'لا توجد ملفات بعد.', 'disputes.attached': 'تم إرفاق {name}.',
    'disputes.fileTooLarge': 'حجم {name} أكبر من {size} كيلوبايت.', 'disputes.fileType': '{name} ليس PDF أو PNG أو JPEG.',
    'disputes.submit': 'إرسال الأدلة', 'disputes.submitted': 'أُرسلت الأدلة: النزاع قيد المراجعة.',
    'disputes.closed': 'لم يعد هذا النزاع يقبل الأدلة.', 'disputes.submittedText': 'النص المرسل',
  },
  tr: {
    'disputes.col.id': 'İtiraz', 'disputes.col.payment': 'Ödeme', 'disputes.col.amount': 'Tutar', 'disputes.col.reason': 'Neden',
    'disputes.col.status': 'Durum', 'disputes.col.due': 'Kanıt son tarihi', 'disputes.empty': 'İtiraz yok.',
    'disputes.back': 'Tüm itirazlar', 'disputes.detail': 'İtiraz {id}', 'disputes.fee': 'Ücret', 'disputes.opened': 'Açıldı',
    'disputes.evidence': 'Kanıt', 'disputes.evidenceHint': 'Ne oldu: teslimat, yazışmalar, politika.',
    'disputes.attachFile': 'Dosya ekle', 'disputes.fileHint': 'PDF, PNG veya JPEG, en çok {size} KiB; en fazla {count} dosya.', 'disputes.reason.fraudulent': 'Dolandırıcılık',
    'disputes.files': 'Ekli dosyalar', 'disputes.noFiles': 'Henüz dosya yok.', 'disputes.attached': '{name} eklendi.',
    'disputes.fileTooLarge': '{name} {size} KiB sınırını aşıyor.', 'disputes.fileType': '{name} PDF, PNG veya JPEG değil.',
    'disputes.submit': 'Kanıtı gönder', 'disputes.submitted': 'Kanıt gönderildi: itiraz incelemede.',
    'disputes.closed': 'Bu itiraz artık kanıt kabul etmiyor.', 'disputes.submittedText': 'Gönderilen metin',
  },
});
