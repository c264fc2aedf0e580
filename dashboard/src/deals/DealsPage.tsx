/**
 * /dashboard/crm/deals: the pipeline board of the merchant's CRM company: a column per stage, each
 * deal's card with its title, value and probability; "New deal" (dealCreate, on a CRM customer
 * chosen or created with crmCustomerCreate) and a stage select on each card (dealUpdate): no drag.
 */
import { useMemo, useState, type FormEvent } from 'react';
import { FormattedMessage, useIntl } from 'react-intl';
import { useMutation, useQuery } from 'urql';
import { Money, Num, Percent } from '../app/format';
import { Dialog, ErrorNote, Field, Loading, Page, buttonClass, inputClass, secondaryButtonClass } from '../app/ui';
import { useCan, useViewer } from '../app/viewer';
import { currencyDecimals, parseMajorAmount } from '../format/money';
import { useLocale } from '../i18n/LocaleProvider';
import { CrmCustomerCreate, DealCreate, DealUpdate, DealsBoard } from './queries';

/** The CRM's stages, in pipeline order (services/crm/deals.py STAGES). */
export const STAGES = ['lead', 'qualified', 'proposal', 'negotiation', 'won', 'lost'] as const;
const CURRENCIES = ['KWD', 'SAR', 'AED', 'BHD', 'OMR', 'QAR', 'JOD', 'EGP', 'TRY', 'IQD', 'USD', 'EUR'];
const MARKET_CURRENCY: Record<string, string> = { KW: 'KWD', SA: 'SAR', AE: 'AED', BH: 'BHD', OM: 'OMR', QA: 'QAR', JO: 'JOD', EG: 'EGP', TR: 'TRY', IQ: 'IQD' };
const NEW_CUSTOMER = '__new__';

function NewDealDialog({ customers, onDone }: { customers: { id: string; name: string; email?: string | null }[]; onDone: () => void }) {
  const intl = useIntl();
  const viewer = useViewer();
  const { lang } = useLocale();
  const [open, setOpen] = useState(false);
  const [title, setTitle] = useState('');
  const [customerId, setCustomerId] = useState('');
  const [customerName, setCustomerName] = useState('');
  const [customerEmail, setCustomerEmail] = useState('');
  const [currency, setCurrency] = useState(MARKET_CURRENCY[viewer.country ?? ''] ?? 'KWD');
  const [value, setValue] = useState('');
  const [probability, setProbability] = useState('');
  const [stage, setStage] = useState<string>('lead');
  const [problem, setProblem] = useState<string | null>(null);
  const [createState, create] = useMutation(DealCreate);
  const [customerState, createCustomer] = useMutation(CrmCustomerCreate);
  const chosen = customerId || (customers.length ? customers[0].id : NEW_CUSTOMER);

  function show() {
    setTitle(''); setValue(''); setProbability(''); setProblem(null); setCustomerId(''); setCustomerName(''); setCustomerEmail('');
    setOpen(true);
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = parseMajorAmount(value, currency, lang);
    if (!parsed.ok) {
      setProblem(intl.formatMessage({ id: parsed.error === 'too_many_decimals' ? 'deals.valueDecimals' : 'deals.valueInvalid' },
        { currency, decimals: currencyDecimals(currency) }));
      return;
    }
    // Blank: the stage's usual probability (the server's default).
    const typed = probability.trim().replace(/[\u0660-\u0669]/g, (c) => String(c.charCodeAt(0) - 0x0660));
    const p = typed === '' ? null : Number(typed);
    if (p !== null && (!Number.isInteger(p) || p < 0 || p > 100)) { setProblem(intl.formatMessage({ id: 'deals.probabilityInvalid' })); return; }
    setProblem(null);
    let cid = chosen;
    if (cid === NEW_CUSTOMER) {
      const r = await createCustomer({ input: { name: customerName.trim(), email: customerEmail.trim() || null } });
      const c = r.data?.crmCustomerCreate.customer;
      if (!c) return;
      cid = c.id;
      setCustomerId(c.id);
    }
    const r = await create({ input: { title: title.trim(), customerId: cid, value: parsed.minor, currency, stage, ...(p === null ? {} : { probability: p }) } });
    if (r.data?.dealCreate.deal) { setOpen(false); onDone(); }
  }

  return (
    <>
      <button type="button" className={buttonClass} onClick={show}><FormattedMessage id="deals.new" /></button>
      <Dialog open={open} onClose={() => setOpen(false)} titleId="deals.new">
        <form onSubmit={submit} noValidate>
          <Field labelId="deals.title" name="title" required value={title} onChange={(e) => setTitle(e.target.value)} />
          <label className="mb-3 block">
            <span className="mb-1 block font-medium"><FormattedMessage id="deals.customer" /></span>
            <select className={inputClass} value={chosen} onChange={(e) => setCustomerId(e.target.value)}>
              {customers.map((c) => <option key={c.id} value={c.id}>{c.name}{c.email ? ` (${c.email})` : ''}</option>)}
              <option value={NEW_CUSTOMER}>{intl.formatMessage({ id: 'deals.newCustomer' })}</option>
            </select>
          </label>
          {chosen === NEW_CUSTOMER && (
            <fieldset className="mb-3 rounded border border-slate-200 p-3">
              <legend className="px-1 text-sm font-medium"><FormattedMessage id="deals.newCustomer" /></legend>
              <Field labelId="deals.customerName" name="customerName" required value={customerName} onChange={(e) => setCustomerName(e.target.value)} />
              <Field labelId="deals.customerEmail" name="customerEmail" type="email" dir="ltr" value={customerEmail} onChange={(e) => setCustomerEmail(e.target.value)} />
            </fieldset>
          )}
          <div className="grid grid-cols-2 gap-3">
            <label className="mb-3 block">
              <span className="mb-1 block font-medium"><FormattedMessage id="deals.currency" /></span>
              <select className={inputClass} value={currency} onChange={(e) => setCurrency(e.target.value)}>
                {CURRENCIES.map((c) => <option key={c} value={c}>{c}</option>)}
              </select>
            </label>
            <Field labelId="deals.value" name="value" inputMode="decimal" dir="ltr" value={value} onChange={(e) => setValue(e.target.value)} />
            <Field labelId="deals.probability" name="probability" inputMode="numeric" dir="ltr" value={probability} onChange={(e) => setProbability(e.target.value)} />
            <label className="mb-3 block">
              <span className="mb-1 block font-medium"><FormattedMessage id="deals.stage" /></span>
              <select className={inputClass} value={stage} onChange={(e) => setStage(e.target.value)}>
                {STAGES.map((s) => <option key={s} value={s}>{intl.formatMessage({ id: `deals.stage.${s}` })}</option>)}
              </select>
            </label>
          </div>
          {problem && <p role="alert" className="mb-3 text-red-800">{problem}</p>}
          <ErrorNote error={customerState.error} userErrors={customerState.data?.crmCustomerCreate.userErrors} />
          <ErrorNote error={createState.error} userErrors={createState.data?.dealCreate.userErrors} />
          <div className="flex justify-end gap-2">
            <button type="button" className={secondaryButtonClass} onClick={() => setOpen(false)}><FormattedMessage id="shell.cancel" /></button>
            <button type="submit" className={buttonClass} disabled={createState.fetching || customerState.fetching}><FormattedMessage id="deals.create" /></button>
          </div>
        </form>
      </Dialog>
    </>
  );
}

export default function DealsPage() {
  const intl = useIntl();
  const can = useCan();
  const [{ data, error, fetching }, refetch] = useQuery({ query: DealsBoard });
  const [moveState, move] = useMutation(DealUpdate);
  const deals = useMemo(() => data?.crm.deals.edges.map((e) => e.node) ?? [], [data]);
  const customers = useMemo(() => data?.crm.customers.edges.map((e) => e.node) ?? [], [data]);
  const names = useMemo(() => new Map(customers.map((c) => [c.id, c.name])), [customers]);
  const write = can('crmWrite');

  return (
    <Page titleId="nav.deals" actions={write && data ? <NewDealDialog customers={customers} onDone={() => refetch({ requestPolicy: 'network-only' })} /> : undefined}>
      <ErrorNote error={error} />
      <ErrorNote error={moveState.error} userErrors={moveState.data?.dealUpdate.userErrors} />
      {fetching && !data ? <Loading /> : (
        <div className="grid gap-3 md:grid-cols-3 xl:grid-cols-6">
          {STAGES.map((stage) => {
            const inStage = deals.filter((d) => d.stage === stage);
            const headingId = `stage-${stage}`;
            return (
              <section key={stage} aria-labelledby={headingId} data-stage={stage} className="rounded border border-slate-200 bg-slate-50 p-2">
                <h2 id={headingId} className="mb-2 flex items-baseline justify-between gap-2 px-1 font-semibold">
                  <span>{intl.formatMessage({ id: `deals.stage.${stage}` })}</span>
                  <span className="text-sm font-normal text-slate-600"><Num value={inStage.length} /></span>
                </h2>
                <ul className="space-y-2">
                  {inStage.map((d) => (
                    <li key={d.id} data-deal-id={d.id} className="rounded border border-slate-200 bg-white p-3 shadow-sm">
                      <h3 className="font-medium"><bdi>{d.title}</bdi></h3>
                      {names.get(d.customerId) && <p className="text-sm text-slate-600"><bdi>{names.get(d.customerId)}</bdi></p>}
                      <p className="mt-1 flex flex-wrap justify-between gap-2">
                        <span data-testid="deal-value"><Money minor={d.value} currency={d.currency} /></span>
                        <span className="text-slate-600" data-testid="deal-probability"><Percent value={d.probability} /></span>
                      </p>
                      {write && (
                        <label className="mt-2 block text-sm">
                          <span className="sr-only">{intl.formatMessage({ id: 'deals.moveLabel' }, { title: d.title })}</span>
                          <select className={`${inputClass} py-1`} value={d.stage} disabled={moveState.fetching}
                            aria-label={intl.formatMessage({ id: 'deals.moveLabel' }, { title: d.title })}
                            onChange={(e) => void move({ input: { id: d.id, stage: e.target.value } })}>
                            {STAGES.map((s) => <option key={s} value={s}>{intl.formatMessage({ id: `deals.stage.${s}` })}</option>)}
                          </select>
                        </label>
                      )}
                    </li>
                  ))}
                </ul>
              </section>
            );
          })}
        </div>
      )}
    </Page>
  );
}
