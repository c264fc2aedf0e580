import { graphql } from '../gql';

export const DealsBoard = graphql(`
  query DealsBoard {
    crm {
      deals(first: 100) {
        totalCount
        edges { node { id title customerId stage value currency probability updatedAt } }
      }
      customers(first: 100) {
        edges { node { id name email } }
      }
    }
  }
`);

export const DealCreate = graphql(`
  mutation DealCreate($input: DealCreateInput!) {
    dealCreate(input: $input) {
      deal { id title customerId stage value currency probability updatedAt }
      userErrors { code message field }
    }
  }
`);

export const DealUpdate = graphql(`
  mutation DealUpdate($input: DealUpdateInput!) {
    dealUpdate(input: $input) {
      deal { id title customerId stage value currency probability updatedAt }
      userErrors { code message field }
    }
  }
`);

export const CrmCustomerCreate = graphql(`
  mutation CrmCustomerCreate($input: CrmCustomerCreateInput!) {
    crmCustomerCreate(input: $input) {
      customer { id name email }
      userErrors { code message field }
    }
  }
`);
