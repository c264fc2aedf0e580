import { graphql } from '../gql';

export const InvoicesList = graphql(`
  query Invoices($first: Int, $after: String, $status: String) {
    invoices(first: $first, after: $after, status: $status) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges {
        node {
          id number status currency total dueDate pdfUrl createdAt customerId
          customer { id name email }
          zatca { type status }
          gib { type status }
          eta { type status }
          notes { id kind number amount reason createdAt zatca { status } gib { status } eta { status } }
        }
      }
    }
  }
`);
