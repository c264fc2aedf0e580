/** Every domain's messages, merged per language. Add a domain's messages.ts here. */
import type { Lang } from '../format/locale';
import app from '../app/messages';
import statuses from '../app/statusMessages';
import auth from '../auth/messages';
import home from '../home/messages';
import payments from '../payments/messages';
import disputes from '../disputes/messages';
import balance from '../balance/messages';
import customers from '../customers/messages';
import deals from '../deals/messages';
import invoices from '../invoices/messages';
import developers from '../developers/messages';
import settings from '../settings/messages';

const domains = [app, statuses, auth, home, payments, disputes, balance, customers, deals, invoices, developers, settings];

export const MESSAGES: Record<Lang, Record<string, string>> = {
  en: Object.assign({}, ...domains.map((d) => d.en)),
  ar: Object.assign({}, ...domains.map((d) => d.ar)),
  tr: Object.assign({}, ...domains.map((d) => d.tr)),
};
