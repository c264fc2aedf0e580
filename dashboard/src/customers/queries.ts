import { graphql } from '../gql';

export const CustomersList = graphql(`
  query Customers($first: Int, $after: String, $email: String) {
    customers(first: $first, after: $after, email: $email) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { node { id name email phone createdAt } }
    }
  }
`);
