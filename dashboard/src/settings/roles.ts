/** The team roles (services/identity/permissions.py), in the order the forms list them. */
export const ROLES = ['owner', 'administrator', 'developer', 'analyst', 'support', 'view_only', 'refund_analyst',
  'dispute_analyst', 'accountant', 'sales'] as const;
