import { graphql } from '../gql';

// One query per card: each root field checks its own permission, and a refusal of a non-null
// root field would null the whole answer.
export const HomeAnalytics = graphql(`
  query HomeAnalytics($today: Date!) {
    analytics(from: $today, to: $today) { volume transactions approved approvalRate currency }
  }
`);
export const HomeSettlements = graphql(`
  query HomeSettlements {
    settlements(first: 20, status: "in_transit") { edges { node { id amount currency arrivalDate status } } }
  }
`);
export const HomeDisputes = graphql(`
  query HomeDisputes {
    disputes(first: 100, status: "needs_response") { totalCount edges { node { id evidenceDueBy } } }
  }
`);
export const HomeInvoices = graphql(`
  query HomeInvoices {
    invoices(first: 100) { edges { node { id zatca { status } gib { status } eta { status } } } }
  }
`);
