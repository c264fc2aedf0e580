/**
 * Every page of the dashboard, one entry each: its path (under /dashboard), the message id of its
 * menu word (also its h1), the page component (lazy: one chunk per page) and the permission the
 * member needs to see it. The menu is built from the entries with `menu: true`.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { Permission } from './viewer';

export interface PageRoute {
  path: string;
  /** Message id of the menu word (the page's h1). */
  titleId: string;
  /** Shown in the menu (detail pages are not). */
  menu: boolean;
  component: LazyExoticComponent<ComponentType>;
  permission: Permission | null;
}

export const ROUTES: PageRoute[] = [
  { path: '', titleId: 'nav.home', menu: true, permission: null, component: lazy(() => import('../home/HomePage')) },
  { path: 'payments', titleId: 'nav.payments', menu: true, permission: 'paymentsRead', component: lazy(() => import('../payments/PaymentsPage')) },
  { path: 'payments/:id', titleId: 'nav.payments', menu: false, permission: 'paymentsRead', component: lazy(() => import('../payments/PaymentPage')) },
  { path: 'disputes', titleId: 'nav.disputes', menu: true, permission: 'disputesRead', component: lazy(() => import('../disputes/DisputesPage')) },
  { path: 'disputes/:id', titleId: 'nav.disputes', menu: false, permission: 'disputesRead', component: lazy(() => import('../disputes/DisputePage')) },
  { path: 'balance', titleId: 'nav.balance', menu: true, permission: 'balanceRead', component: lazy(() => import('../balance/BalancePage')) },
  { path: 'customers', titleId: 'nav.customers', menu: true, permission: 'customersRead', component: lazy(() => import('../customers/CustomersPage')) },
  { path: 'crm/deals', titleId: 'nav.deals', menu: true, permission: 'crmRead', component: lazy(() => import('../deals/DealsPage')) },
  { path: 'invoices', titleId: 'nav.invoices', menu: true, permission: 'billingRead', component: lazy(() => import('../invoices/InvoicesPage')) },
  { path: 'developers', titleId: 'nav.developers', menu: true, permission: 'developersRead', component: lazy(() => import('../developers/DevelopersPage')) },
  { path: 'settings/team', titleId: 'nav.team', menu: true, permission: 'teamRead', component: lazy(() => import('../settings/TeamPage')) },
  { path: 'settings/security', titleId: 'nav.security', menu: true, permission: null, component: lazy(() => import('../settings/SecurityPage')) },
  { path: 'settings/audit', titleId: 'nav.audit', menu: true, permission: 'auditRead', component: lazy(() => import('../settings/AuditPage')) },
];
