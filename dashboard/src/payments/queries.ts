import { graphql } from '../gql';

export const PaymentRowFields = graphql(`
  fragment PaymentRow on Payment {
    id status amount amountRefunded currency paymentMethodType createdAt
    card { brand last4 }
    wallet { type dynamicLast4 }
    customer { id email phone }
  }
`);

export const PaymentsList = graphql(`
  query Payments($first: Int, $after: String, $status: String, $currency: String, $method: String, $query: String,
                 $amountGte: Int, $amountLte: Int, $createdGte: DateTime, $createdLte: DateTime) {
    payments(first: $first, after: $after, status: $status, currency: $currency, method: $method, query: $query,
             amountGte: $amountGte, amountLte: $amountLte, createdGte: $createdGte, createdLte: $createdLte) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { node { ...PaymentRow } }
    }
  }
`);

export const PaymentsExportQuery = graphql(`
  query PaymentsExport($status: String, $currency: String, $method: String, $query: String,
                       $amountGte: Int, $amountLte: Int, $createdGte: DateTime, $createdLte: DateTime) {
    paymentsExport(status: $status, currency: $currency, method: $method, query: $query,
                   amountGte: $amountGte, amountLte: $amountLte, createdGte: $createdGte, createdLte: $createdLte) {
      filename csv rowCount userErrors { code message field }
    }
  }
`);

export const PaymentEventsSubscription = graphql(`
  subscription PaymentEvents {
    paymentEvents {
      id
      type
      payment { ...PaymentRow }
    }
  }
`);

export const PaymentDetail = graphql(`
  query PaymentDetail($id: ID!) {
    payment(id: $id) {
      ...PaymentRow
      provider amountCaptured captureMethod declineCode receiptUrl invoiceId capturedAt voidedAt
      refunds { id amount currency reason createdAt }
      card { brand last4 networks country }
      wallet { type dynamicLast4 authMethod }
      installments { count installmentAmount firstInstallmentAmount totalAmount commission paidBy program bank }
      receipt { channel sentTo status }
      gib { type number status }
      etaReceipt { number status }
      dispute { id status createdAt closedAt evidenceDueBy }
    }
  }
`);

export const PaymentRefund = graphql(`
  mutation PaymentRefund($input: PaymentRefundInput!) {
    paymentRefund(input: $input) {
      refundId amount
      payment { id status amountRefunded amountCaptured }
      userErrors { code message field }
    }
  }
`);

export const PaymentInvoice = graphql(`
  query PaymentInvoice($id: ID!) {
    invoice(id: $id) { id number status zatca { status } gib { number status } eta { status } }
  }
`);
