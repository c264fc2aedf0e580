import { catalog } from '../i18n/types';

export default catalog({
  en: {
    'balance.available': 'Available', 'balance.pending': 'Pending', 'balance.currency': 'Currency', 'balance.none': 'Nothing yet.',
    'balance.settlements': 'Settlements on their way', 'balance.payouts': 'Payouts',
    'balance.col.id': 'Settlement', 'balance.col.amount': 'Net', 'balance.col.gross': 'Gross', 'balance.col.fee': 'Fees',
    'balance.col.transactions': 'Transactions', 'balance.col.settledOn': 'Settled on', 'balance.col.arrival': 'Arrival date', 'balance.col.status': 'Status',
    'balance.col.paidAt': 'Paid at',
  },
  ar: {
    'balance.available': 'المتاح', 'balance.pending': 'المعلّق', 'balance.currency': 'العملة', 'balance.none': 'لا شيء بعد.',
    'balance.settlements': 'تسويات في الطريق', 'balance.payouts': 'المدفوعات إلى حسابك',
    'balance.col.id': 'التسوية', 'balance.col.amount': 'الصافي', 'balance.col.gross': 'الإجمالي', 'balance.col.fee': 'الرسوم',
    'balance.col.transactions': 'العمليات', 'balance.col.settledOn': 'تاريخ التسوية', 'balance.col.arrival': 'تاريخ الوصول', 'balance.col.status': 'الحالة',
    'balance.col.paidAt': 'وقت الدفع',
  },
  tr: {
    'balance.available': 'Kullanılabilir', 'balance.pending': 'Beklemede', 'balance.currency': 'Para birimi', 'balance.none': 'Henüz yok.',
    'balance.settlements': 'Yoldaki hesap kesimleri', 'balance.payouts': 'Ödemeler',
    'balance.col.id': 'Hesap kesimi', 'balance.col.amount': 'Net', 'balance.col.gross': 'Brüt', 'balance.col.fee': 'Ücretler',
    'balance.col.transactions': 'İşlemler', 'balance.col.settledOn': 'Kesim tarihi', 'balance.col.arrival': 'Varış tarihi', 'balance.col.status': 'Durum',
    'balance.col.paidAt': 'Ödenme zamanı',
  },
});
