/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query Viewer {\n    viewer {\n      id\n      name\n      email\n      livemode\n      country\n      timeZone\n      today\n      member {\n        id\n        email\n        roles\n        twoFactorEnabled\n        language\n        digits\n        memberships { merchantId merchantName roles }\n        permissions {\n          paymentsRead paymentsWrite refundsRead refundsWrite disputesRead disputesWrite\n          balanceRead balanceWrite customersRead customersWrite billingRead billingWrite\n          einvoicingRead einvoicingWrite crmRead crmWrite developersRead developersWrite\n          teamRead teamWrite settingsRead settingsWrite auditRead\n        }\n      }\n    }\n  }\n": typeof types.ViewerDocument,
    "\n  mutation MemberPreferences($input: MemberPreferencesUpdateInput!) {\n    memberPreferencesUpdate(input: $input) {\n      member { id language digits }\n      userErrors { code message field }\n    }\n  }\n": typeof types.MemberPreferencesDocument,
    "\n  mutation SwitchMerchant($input: SessionSwitchMerchantInput!) {\n    sessionSwitchMerchant(input: $input) {\n      csrfToken\n      merchantId\n      twoFactor\n      challengeId\n      userErrors { code message field }\n    }\n  }\n": typeof types.SwitchMerchantDocument,
    "\n  query CurrentSession { sessions { id current } }\n": typeof types.CurrentSessionDocument,
    "\n  mutation SignOut($input: SessionRevokeInput!) {\n    sessionRevoke(input: $input) { userErrors { code message } }\n  }\n": typeof types.SignOutDocument,
    "\n  mutation OtpRequest($input: OtpRequestInput!) {\n    otpRequest(input: $input) { requestId expiresIn userErrors { code message field } }\n  }\n": typeof types.OtpRequestDocument,
    "\n  mutation OtpVerify($input: OtpVerifyInput!) {\n    otpVerify(input: $input) { csrfToken merchantId twoFactor challengeId userErrors { code message field } }\n  }\n": typeof types.OtpVerifyDocument,
    "\n  mutation TwoFactorVerify($input: TwoFactorVerifyInput!) {\n    twoFactorVerify(input: $input) { csrfToken merchantId twoFactor userErrors { code message field } }\n  }\n": typeof types.TwoFactorVerifyDocument,
    "\n  mutation TeamInviteAccept($input: TeamInviteAcceptInput!) {\n    teamInviteAccept(input: $input) { member { id email roles } merchant { id name } userErrors { code message field } }\n  }\n": typeof types.TeamInviteAcceptDocument,
    "\n  query BalancePage {\n    balance { available { amount currency } pending { amount currency } }\n    inTransit: settlements(first: 50, status: \"in_transit\") {\n      edges { node { id amount gross fee currency status arrivalDate settledOn transactions } }\n    }\n    paid: settlements(first: 50, status: \"paid\") {\n      edges { node { id amount gross fee currency status arrivalDate settledOn transactions paidAt } }\n    }\n  }\n": typeof types.BalancePageDocument,
    "\n  query Customers($first: Int, $after: String, $email: String) {\n    customers(first: $first, after: $after, email: $email) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges { node { id name email phone createdAt } }\n    }\n  }\n": typeof types.CustomersDocument,
    "\n  query DealsBoard {\n    crm {\n      deals(first: 100) {\n        totalCount\n        edges { node { id title customerId stage value currency probability updatedAt } }\n      }\n      customers(first: 100) {\n        edges { node { id name email } }\n      }\n    }\n  }\n": typeof types.DealsBoardDocument,
    "\n  mutation DealCreate($input: DealCreateInput!) {\n    dealCreate(input: $input) {\n      deal { id title customerId stage value currency probability updatedAt }\n      userErrors { code message field }\n    }\n  }\n": typeof types.DealCreateDocument,
    "\n  mutation DealUpdate($input: DealUpdateInput!) {\n    dealUpdate(input: $input) {\n      deal { id title customerId stage value currency probability updatedAt }\n      userErrors { code message field }\n    }\n  }\n": typeof types.DealUpdateDocument,
    "\n  mutation CrmCustomerCreate($input: CrmCustomerCreateInput!) {\n    crmCustomerCreate(input: $input) {\n      customer { id name email }\n      userErrors { code message field }\n    }\n  }\n": typeof types.CrmCustomerCreateDocument,
    "\n  query ApiKeys {\n    apiKeys(first: 100) {\n      edges { node { id name type prefix mode status createdAt lastUsed } }\n    }\n  }\n": typeof types.ApiKeysDocument,
    "\n  mutation ApiKeyCreate($input: ApiKeyCreateInput!) {\n    apiKeyCreate(input: $input) {\n      key\n      apiKey { id name type prefix mode status createdAt lastUsed }\n      userErrors { code message field }\n    }\n  }\n": typeof types.ApiKeyCreateDocument,
    "\n  mutation ApiKeyRevoke($input: ApiKeyRevokeInput!) {\n    apiKeyRevoke(input: $input) {\n      apiKey { id status }\n      userErrors { code message field }\n    }\n  }\n": typeof types.ApiKeyRevokeDocument,
    "\n  query WebhookEndpoints {\n    webhookEndpoints(first: 100) {\n      edges { node { id url status events livemode createdAt } }\n    }\n  }\n": typeof types.WebhookEndpointsDocument,
    "\n  query WebhookEvents($first: Int, $after: String) {\n    webhookEvents(first: $first, after: $after) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges {\n        node {\n          id event status delivered attempts objectId createdAt\n          deliveries { id endpointId state delivered attempts nextAttemptAt lastStatusCode lastError }\n        }\n      }\n    }\n  }\n": typeof types.WebhookEventsDocument,
    "\n  query WebhookEventAttempts($id: ID!) {\n    node(id: $id) {\n      ... on WebhookEvent {\n        id\n        deliveries {\n          id endpointId state\n          attemptLog { number createdAt statusCode latencyMs error manual }\n        }\n      }\n    }\n  }\n": typeof types.WebhookEventAttemptsDocument,
    "\n  mutation WebhookEventRetry($input: WebhookEventRetryInput!) {\n    webhookEventRetry(input: $input) {\n      webhookEvent {\n        id event status delivered attempts objectId createdAt\n        deliveries {\n          id endpointId state delivered attempts nextAttemptAt lastStatusCode lastError\n          attemptLog { number createdAt statusCode latencyMs error manual }\n        }\n      }\n      userErrors { code message field }\n    }\n  }\n": typeof types.WebhookEventRetryDocument,
    "\n  query Disputes {\n    disputes(first: 100) {\n      totalCount\n      edges { node { id paymentId amount currency reason status evidenceDueBy createdAt } }\n    }\n  }\n": typeof types.DisputesDocument,
    "\n  query DisputeDetail($id: ID!) {\n    dispute(id: $id) {\n      id paymentId amount fee currency reason status evidence evidenceDueBy createdAt closedAt\n      evidenceFiles { id filename contentType size sha256 }\n    }\n  }\n": typeof types.DisputeDetailDocument,
    "\n  mutation DisputeEvidenceSubmit($input: DisputeEvidenceInput!) {\n    disputeEvidenceSubmit(input: $input) {\n      dispute { id status evidence }\n      userErrors { code message field }\n    }\n  }\n": typeof types.DisputeEvidenceSubmitDocument,
    "\n  mutation DisputeEvidenceFileAdd($input: DisputeEvidenceFileAddInput!) {\n    disputeEvidenceFileAdd(input: $input) {\n      dispute { id evidenceFiles { id filename contentType size sha256 } }\n      userErrors { code message field }\n    }\n  }\n": typeof types.DisputeEvidenceFileAddDocument,
    "\n  query HomeAnalytics($today: Date!) {\n    analytics(from: $today, to: $today) { volume transactions approved approvalRate currency }\n  }\n": typeof types.HomeAnalyticsDocument,
    "\n  query HomeSettlements {\n    settlements(first: 20, status: \"in_transit\") { edges { node { id amount currency arrivalDate status } } }\n  }\n": typeof types.HomeSettlementsDocument,
    "\n  query HomeDisputes {\n    disputes(first: 100, status: \"needs_response\") { totalCount edges { node { id evidenceDueBy } } }\n  }\n": typeof types.HomeDisputesDocument,
    "\n  query HomeInvoices {\n    invoices(first: 100) { edges { node { id zatca { status } gib { status } eta { status } } } }\n  }\n": typeof types.HomeInvoicesDocument,
    "\n  query Invoices($first: Int, $after: String, $status: String) {\n    invoices(first: $first, after: $after, status: $status) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges {\n        node {\n          id number status currency total dueDate pdfUrl createdAt customerId\n          customer { id name email }\n          zatca { type status }\n          gib { type status }\n          eta { type status }\n          notes { id kind number amount reason createdAt zatca { status } gib { status } eta { status } }\n        }\n      }\n    }\n  }\n": typeof types.InvoicesDocument,
    "\n  fragment PaymentRow on Payment {\n    id status amount amountRefunded currency paymentMethodType createdAt\n    card { brand last4 }\n    wallet { type dynamicLast4 }\n    customer { id email phone }\n  }\n": typeof types.PaymentRowFragmentDoc,
    "\n  query Payments($first: Int, $after: String, $status: String, $currency: String, $method: String, $query: String,\n                 $amountGte: Int, $amountLte: Int, $createdGte: DateTime, $createdLte: DateTime) {\n    payments(first: $first, after: $after, status: $status, currency: $currency, method: $method, query: $query,\n             amountGte: $amountGte, amountLte: $amountLte, createdGte: $createdGte, createdLte: $createdLte) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges { node { ...PaymentRow } }\n    }\n  }\n": typeof types.PaymentsDocument,
    "\n  query PaymentsExport($status: String, $currency: String, $method: String, $query: String,\n                       $amountGte: Int, $amountLte: Int, $createdGte: DateTime, $createdLte: DateTime) {\n    paymentsExport(status: $status, currency: $currency, method: $method, query: $query,\n                   amountGte: $amountGte, amountLte: $amountLte, createdGte: $createdGte, createdLte: $createdLte) {\n      filename csv rowCount userErrors { code message field }\n    }\n  }\n": typeof types.PaymentsExportDocument,
    "\n  subscription PaymentEvents {\n    paymentEvents {\n      id\n      type\n      payment { ...PaymentRow }\n    }\n  }\n": typeof types.PaymentEventsDocument,
    "\n  query PaymentDetail($id: ID!) {\n    payment(id: $id) {\n      ...PaymentRow\n      provider amountCaptured captureMethod declineCode receiptUrl invoiceId capturedAt voidedAt\n      refunds { id amount currency reason createdAt }\n      card { brand last4 networks country }\n      wallet { type dynamicLast4 authMethod }\n      installments { count installmentAmount firstInstallmentAmount totalAmount commission paidBy program bank }\n      receipt { channel sentTo status }\n      gib { type number status }\n      etaReceipt { number status }\n      dispute { id status createdAt closedAt evidenceDueBy }\n    }\n  }\n": typeof types.PaymentDetailDocument,
    "\n  mutation PaymentRefund($input: PaymentRefundInput!) {\n    paymentRefund(input: $input) {\n      refundId amount\n      payment { id status amountRefunded amountCaptured }\n      userErrors { code message field }\n    }\n  }\n": typeof types.PaymentRefundDocument,
    "\n  query PaymentInvoice($id: ID!) {\n    invoice(id: $id) { id number status zatca { status } gib { number status } eta { status } }\n  }\n": typeof types.PaymentInvoiceDocument,
    "\n  query TeamMembers {\n    teamMembers(first: 100) {\n      edges { node { id email roles twoFactorEnabled createdAt } }\n    }\n  }\n": typeof types.TeamMembersDocument,
    "\n  query TeamInvites {\n    teamInvites(first: 100) {\n      edges { node { id email roles status expiresAt createdAt } }\n    }\n  }\n": typeof types.TeamInvitesDocument,
    "\n  mutation TeamInviteCreate($input: TeamInviteCreateInput!) {\n    teamInviteCreate(input: $input) {\n      invite { id email roles status expiresAt createdAt }\n      userErrors { code message field }\n    }\n  }\n": typeof types.TeamInviteCreateDocument,
    "\n  mutation TeamInviteRevoke($input: TeamInviteRevokeInput!) {\n    teamInviteRevoke(input: $input) {\n      invite { id status }\n      userErrors { code message field }\n    }\n  }\n": typeof types.TeamInviteRevokeDocument,
    "\n  mutation TeamMemberUpdate($input: TeamMemberUpdateInput!) {\n    teamMemberUpdate(input: $input) {\n      member { id email roles }\n      userErrors { code message field }\n    }\n  }\n": typeof types.TeamMemberUpdateDocument,
    "\n  mutation TeamMemberRemove($input: TeamMemberRemoveInput!) {\n    teamMemberRemove(input: $input) {\n      member { id }\n      userErrors { code message field }\n    }\n  }\n": typeof types.TeamMemberRemoveDocument,
    "\n  mutation StepUp($input: TwoFactorCodeInput!) {\n    stepUp(input: $input) {\n      stepUpExpiresAt\n      userErrors { code message field }\n    }\n  }\n": typeof types.StepUpDocument,
    "\n  query Sessions {\n    sessions { id current kind device userAgent ip createdAt lastSeenAt }\n  }\n": typeof types.SessionsDocument,
    "\n  mutation SessionRevoke($input: SessionRevokeInput!) {\n    sessionRevoke(input: $input) {\n      session { id }\n      userErrors { code message field }\n    }\n  }\n": typeof types.SessionRevokeDocument,
    "\n  mutation SessionsRevokeOthers {\n    sessionsRevokeOthers {\n      revoked\n      userErrors { code message field }\n    }\n  }\n": typeof types.SessionsRevokeOthersDocument,
    "\n  mutation TwoFactorEnroll {\n    twoFactorEnroll {\n      secret otpauthUri qrCode\n      userErrors { code message field }\n    }\n  }\n": typeof types.TwoFactorEnrollDocument,
    "\n  mutation TwoFactorConfirm($input: TwoFactorCodeInput!) {\n    twoFactorConfirm(input: $input) {\n      enabled recoveryCodes\n      userErrors { code message field }\n    }\n  }\n": typeof types.TwoFactorConfirmDocument,
    "\n  mutation TwoFactorDisable($input: TwoFactorCodeInput!) {\n    twoFactorDisable(input: $input) {\n      enabled\n      userErrors { code message field }\n    }\n  }\n": typeof types.TwoFactorDisableDocument,
    "\n  query AuditEvents($first: Int, $after: String, $actor: ID, $action: String, $objectType: String, $objectId: ID,\n                    $createdGte: DateTime, $createdLte: DateTime) {\n    auditEvents(first: $first, after: $after, actor: $actor, action: $action, objectType: $objectType,\n                objectId: $objectId, createdGte: $createdGte, createdLte: $createdLte) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges { node { id createdAt action ip actor { type id email } object { type id } } }\n    }\n  }\n": typeof types.AuditEventsDocument,
};
const documents: Documents = {
    "\n  query Viewer {\n    viewer {\n      id\n      name\n      email\n      livemode\n      country\n      timeZone\n      today\n      member {\n        id\n        email\n        roles\n        twoFactorEnabled\n        language\n        digits\n        memberships { merchantId merchantName roles }\n        permissions {\n          paymentsRead paymentsWrite refundsRead refundsWrite disputesRead disputesWrite\n          balanceRead balanceWrite customersRead customersWrite billingRead billingWrite\n          einvoicingRead einvoicingWrite crmRead crmWrite developersRead developersWrite\n          teamRead teamWrite settingsRead settingsWrite auditRead\n        }\n      }\n    }\n  }\n": types.ViewerDocument,
    "\n  mutation MemberPreferences($input: MemberPreferencesUpdateInput!) {\n    memberPreferencesUpdate(input: $input) {\n      member { id language digits }\n      userErrors { code message field }\n    }\n  }\n": types.MemberPreferencesDocument,
    "\n  mutation SwitchMerchant($input: SessionSwitchMerchantInput!) {\n    sessionSwitchMerchant(input: $input) {\n      csrfToken\n      merchantId\n      twoFactor\n      challengeId\n      userErrors { code message field }\n    }\n  }\n": types.SwitchMerchantDocument,
    "\n  query CurrentSession { sessions { id current } }\n": types.CurrentSessionDocument,
    "\n  mutation SignOut($input: SessionRevokeInput!) {\n    sessionRevoke(input: $input) { userErrors { code message } }\n  }\n": types.SignOutDocument,
    "\n  mutation OtpRequest($input: OtpRequestInput!) {\n    otpRequest(input: $input) { requestId expiresIn userErrors { code message field } }\n  }\n": types.OtpRequestDocument,
    "\n  mutation OtpVerify($input: OtpVerifyInput!) {\n    otpVerify(input: $input) { csrfToken merchantId twoFactor challengeId userErrors { code message field } }\n  }\n": types.OtpVerifyDocument,
    "\n  mutation TwoFactorVerify($input: TwoFactorVerifyInput!) {\n    twoFactorVerify(input: $input) { csrfToken merchantId twoFactor userErrors { code message field } }\n  }\n": types.TwoFactorVerifyDocument,
    "\n  mutation TeamInviteAccept($input: TeamInviteAcceptInput!) {\n    teamInviteAccept(input: $input) { member { id email roles } merchant { id name } userErrors { code message field } }\n  }\n": types.TeamInviteAcceptDocument,
    "\n  query BalancePage {\n    balance { available { amount currency } pending { amount currency } }\n    inTransit: settlements(first: 50, status: \"in_transit\") {\n      edges { node { id amount gross fee currency status arrivalDate settledOn transactions } }\n    }\n    paid: settlements(first: 50, status: \"paid\") {\n      edges { node { id amount gross fee currency status arrivalDate settledOn transactions paidAt } }\n    }\n  }\n": types.BalancePageDocument,
    "\n  query Customers($first: Int, $after: String, $email: String) {\n    customers(first: $first, after: $after, email: $email) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges { node { id name email phone createdAt } }\n    }\n  }\n": types.CustomersDocument,
    "\n  query DealsBoard {\n    crm {\n      deals(first: 100) {\n        totalCount\n        edges { node { id title customerId stage value currency probability updatedAt } }\n      }\n      customers(first: 100) {\n        edges { node { id name email } }\n      }\n    }\n  }\n": types.DealsBoardDocument,
    "\n  mutation DealCreate($input: DealCreateInput!) {\n    dealCreate(input: $input) {\n      deal { id title customerId stage value currency probability updatedAt }\n      userErrors { code message field }\n    }\n  }\n": types.DealCreateDocument,
    "\n  mutation DealUpdate($input: DealUpdateInput!) {\n    dealUpdate(input: $input) {\n      deal { id title customerId stage value currency probability updatedAt }\n      userErrors { code message field }\n    }\n  }\n": types.DealUpdateDocument,
    "\n  mutation CrmCustomerCreate($input: CrmCustomerCreateInput!) {\n    crmCustomerCreate(input: $input) {\n      customer { id name email }\n      userErrors { code message field }\n    }\n  }\n": types.CrmCustomerCreateDocument,
    "\n  query ApiKeys {\n    apiKeys(first: 100) {\n      edges { node { id name type prefix mode status createdAt lastUsed } }\n    }\n  }\n": types.ApiKeysDocument,
    "\n  mutation ApiKeyCreate($input: ApiKeyCreateInput!) {\n    apiKeyCreate(input: $input) {\n      key\n      apiKey { id name type prefix mode status createdAt lastUsed }\n      userErrors { code message field }\n    }\n  }\n": types.ApiKeyCreateDocument,
    "\n  mutation ApiKeyRevoke($input: ApiKeyRevokeInput!) {\n    apiKeyRevoke(input: $input) {\n      apiKey { id status }\n      userErrors { code message field }\n    }\n  }\n": types.ApiKeyRevokeDocument,
    "\n  query WebhookEndpoints {\n    webhookEndpoints(first: 100) {\n      edges { node { id url status events livemode createdAt } }\n    }\n  }\n": types.WebhookEndpointsDocument,
    "\n  query WebhookEvents($first: Int, $after: String) {\n    webhookEvents(first: $first, after: $after) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges {\n        node {\n          id event status delivered attempts objectId createdAt\n          deliveries { id endpointId state delivered attempts nextAttemptAt lastStatusCode lastError }\n        }\n      }\n    }\n  }\n": types.WebhookEventsDocument,
    "\n  query WebhookEventAttempts($id: ID!) {\n    node(id: $id) {\n      ... on WebhookEvent {\n        id\n        deliveries {\n          id endpointId state\n          attemptLog { number createdAt statusCode latencyMs error manual }\n        }\n      }\n    }\n  }\n": types.WebhookEventAttemptsDocument,
    "\n  mutation WebhookEventRetry($input: WebhookEventRetryInput!) {\n    webhookEventRetry(input: $input) {\n      webhookEvent {\n        id event status delivered attempts objectId createdAt\n        deliveries {\n          id endpointId state delivered attempts nextAttemptAt lastStatusCode lastError\n          attemptLog { number createdAt statusCode latencyMs error manual }\n        }\n      }\n      userErrors { code message field }\n    }\n  }\n": types.WebhookEventRetryDocument,
    "\n  query Disputes {\n    disputes(first: 100) {\n      totalCount\n      edges { node { id paymentId amount currency reason status evidenceDueBy createdAt } }\n    }\n  }\n": types.DisputesDocument,
    "\n  query DisputeDetail($id: ID!) {\n    dispute(id: $id) {\n      id paymentId amount fee currency reason status evidence evidenceDueBy createdAt closedAt\n      evidenceFiles { id filename contentType size sha256 }\n    }\n  }\n": types.DisputeDetailDocument,
    "\n  mutation DisputeEvidenceSubmit($input: DisputeEvidenceInput!) {\n    disputeEvidenceSubmit(input: $input) {\n      dispute { id status evidence }\n      userErrors { code message field }\n    }\n  }\n": types.DisputeEvidenceSubmitDocument,
    "\n  mutation DisputeEvidenceFileAdd($input: DisputeEvidenceFileAddInput!) {\n    disputeEvidenceFileAdd(input: $input) {\n      dispute { id evidenceFiles { id filename contentType size sha256 } }\n      userErrors { code message field }\n    }\n  }\n": types.DisputeEvidenceFileAddDocument,
    "\n  query HomeAnalytics($today: Date!) {\n    analytics(from: $today, to: $today) { volume transactions approved approvalRate currency }\n  }\n": types.HomeAnalyticsDocument,
    "\n  query HomeSettlements {\n    settlements(first: 20, status: \"in_transit\") { edges { node { id amount currency arrivalDate status } } }\n  }\n": types.HomeSettlementsDocument,
    "\n  query HomeDisputes {\n    disputes(first: 100, status: \"needs_response\") { totalCount edges { node { id evidenceDueBy } } }\n  }\n": types.HomeDisputesDocument,
    "\n  query HomeInvoices {\n    invoices(first: 100) { edges { node { id zatca { status } gib { status } eta { status } } } }\n  }\n": types.HomeInvoicesDocument,
    "\n  query Invoices($first: Int, $after: String, $status: String) {\n    invoices(first: $first, after: $after, status: $status) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges {\n        node {\n          id number status currency total dueDate pdfUrl createdAt customerId\n          customer { id name email }\n          zatca { type status }\n          gib { type status }\n          eta { type status }\n          notes { id kind number amount reason createdAt zatca { status } gib { status } eta { status } }\n        }\n      }\n    }\n  }\n": types.InvoicesDocument,
    "\n  fragment PaymentRow on Payment {\n    id status amount amountRefunded currency paymentMethodType createdAt\n    card { brand last4 }\n    wallet { type dynamicLast4 }\n    customer { id email phone }\n  }\n": types.PaymentRowFragmentDoc,
    "\n  query Payments($first: Int, $after: String, $status: String, $currency: String, $method: String, $query: String,\n                 $amountGte: Int, $amountLte: Int, $createdGte: DateTime, $createdLte: DateTime) {\n    payments(first: $first, after: $after, status: $status, currency: $currency, method: $method, query: $query,\n             amountGte: $amountGte, amountLte: $amountLte, createdGte: $createdGte, createdLte: $createdLte) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges { node { ...PaymentRow } }\n    }\n  }\n": types.PaymentsDocument,
    "\n  query PaymentsExport($status: String, $currency: String, $method: String, $query: String,\n                       $amountGte: Int, $amountLte: Int, $createdGte: DateTime, $createdLte: DateTime) {\n    paymentsExport(status: $status, currency: $currency, method: $method, query: $query,\n                   amountGte: $amountGte, amountLte: $amountLte, createdGte: $createdGte, createdLte: $createdLte) {\n      filename csv rowCount userErrors { code message field }\n    }\n  }\n": types.PaymentsExportDocument,
    "\n  subscription PaymentEvents {\n    paymentEvents {\n      id\n      type\n      payment { ...PaymentRow }\n    }\n  }\n": types.PaymentEventsDocument,
    "\n  query PaymentDetail($id: ID!) {\n    payment(id: $id) {\n      ...PaymentRow\n      provider amountCaptured captureMethod declineCode receiptUrl invoiceId capturedAt voidedAt\n      refunds { id amount currency reason createdAt }\n      card { brand last4 networks country }\n      wallet { type dynamicLast4 authMethod }\n      installments { count installmentAmount firstInstallmentAmount totalAmount commission paidBy program bank }\n      receipt { channel sentTo status }\n      gib { type number status }\n      etaReceipt { number status }\n      dispute { id status createdAt closedAt evidenceDueBy }\n    }\n  }\n": types.PaymentDetailDocument,
    "\n  mutation PaymentRefund($input: PaymentRefundInput!) {\n    paymentRefund(input: $input) {\n      refundId amount\n      payment { id status amountRefunded amountCaptured }\n      userErrors { code message field }\n    }\n  }\n": types.PaymentRefundDocument,
    "\n  query PaymentInvoice($id: ID!) {\n    invoice(id: $id) { id number status zatca { status } gib { number status } eta { status } }\n  }\n": types.PaymentInvoiceDocument,
    "\n  query TeamMembers {\n    teamMembers(first: 100) {\n      edges { node { id email roles twoFactorEnabled createdAt } }\n    }\n  }\n": types.TeamMembersDocument,
    "\n  query TeamInvites {\n    teamInvites(first: 100) {\n      edges { node { id email roles status expiresAt createdAt } }\n    }\n  }\n": types.TeamInvitesDocument,
    "\n  mutation TeamInviteCreate($input: TeamInviteCreateInput!) {\n    teamInviteCreate(input: $input) {\n      invite { id email roles status expiresAt createdAt }\n      userErrors { code message field }\n    }\n  }\n": types.TeamInviteCreateDocument,
    "\n  mutation TeamInviteRevoke($input: TeamInviteRevokeInput!) {\n    teamInviteRevoke(input: $input) {\n      invite { id status }\n      userErrors { code message field }\n    }\n  }\n": types.TeamInviteRevokeDocument,
    "\n  mutation TeamMemberUpdate($input: TeamMemberUpdateInput!) {\n    teamMemberUpdate(input: $input) {\n      member { id email roles }\n      userErrors { code message field }\n    }\n  }\n": types.TeamMemberUpdateDocument,
    "\n  mutation TeamMemberRemove($input: TeamMemberRemoveInput!) {\n    teamMemberRemove(input: $input) {\n      member { id }\n      userErrors { code message field }\n    }\n  }\n": types.TeamMemberRemoveDocument,
    "\n  mutation StepUp($input: TwoFactorCodeInput!) {\n    stepUp(input: $input) {\n      stepUpExpiresAt\n      userErrors { code message field }\n    }\n  }\n": types.StepUpDocument,
    "\n  query Sessions {\n    sessions { id current kind device userAgent ip createdAt lastSeenAt }\n  }\n": types.SessionsDocument,
    "\n  mutation SessionRevoke($input: SessionRevokeInput!) {\n    sessionRevoke(input: $input) {\n      session { id }\n      userErrors { code message field }\n    }\n  }\n": types.SessionRevokeDocument,
    "\n  mutation SessionsRevokeOthers {\n    sessionsRevokeOthers {\n      revoked\n      userErrors { code message field }\n    }\n  }\n": types.SessionsRevokeOthersDocument,
    "\n  mutation TwoFactorEnroll {\n    twoFactorEnroll {\n      secret otpauthUri qrCode\n      userErrors { code message field }\n    }\n  }\n": types.TwoFactorEnrollDocument,
    "\n  mutation TwoFactorConfirm($input: TwoFactorCodeInput!) {\n    twoFactorConfirm(input: $input) {\n      enabled recoveryCodes\n      userErrors { code message field }\n    }\n  }\n": types.TwoFactorConfirmDocument,
    "\n  mutation TwoFactorDisable($input: TwoFactorCodeInput!) {\n    twoFactorDisable(input: $input) {\n      enabled\n      userErrors { code message field }\n    }\n  }\n": types.TwoFactorDisableDocument,
    "\n  query AuditEvents($first: Int, $after: String, $actor: ID, $action: String, $objectType: String, $objectId: ID,\n                    $createdGte: DateTime, $createdLte: DateTime) {\n    auditEvents(first: $first, after: $after, actor: $actor, action: $action, objectType: $objectType,\n                objectId: $objectId, createdGte: $createdGte, createdLte: $createdLte) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges { node { id createdAt action ip actor { type id email } object { type id } } }\n    }\n  }\n": types.AuditEventsDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Viewer {\n    viewer {\n      id\n      name\n      email\n      livemode\n      country\n      timeZone\n      today\n      member {\n        id\n        email\n        roles\n        twoFactorEnabled\n        language\n        digits\n        memberships { merchantId merchantName roles }\n        permissions {\n          paymentsRead paymentsWrite refundsRead refundsWrite disputesRead disputesWrite\n          balanceRead balanceWrite customersRead customersWrite billingRead billingWrite\n          einvoicingRead einvoicingWrite crmRead crmWrite developersRead developersWrite\n          teamRead teamWrite settingsRead settingsWrite auditRead\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query Viewer {\n    viewer {\n      id\n      name\n      email\n      livemode\n      country\n      timeZone\n      today\n      member {\n        id\n        email\n        roles\n        twoFactorEnabled\n        language\n        digits\n        memberships { merchantId merchantName roles }\n        permissions {\n          paymentsRead paymentsWrite refundsRead refundsWrite disputesRead disputesWrite\n          balanceRead balanceWrite customersRead customersWrite billingRead billingWrite\n          einvoicingRead einvoicingWrite crmRead crmWrite developersRead developersWrite\n          teamRead teamWrite settingsRead settingsWrite auditRead\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation MemberPreferences($input: MemberPreferencesUpdateInput!) {\n    memberPreferencesUpdate(input: $input) {\n      member { id language digits }\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation MemberPreferences($input: MemberPreferencesUpdateInput!) {\n    memberPreferencesUpdate(input: $input) {\n      member { id language digits }\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SwitchMerchant($input: SessionSwitchMerchantInput!) {\n    sessionSwitchMerchant(input: $input) {\n      csrfToken\n      merchantId\n      twoFactor\n      challengeId\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation SwitchMerchant($input: SessionSwitchMerchantInput!) {\n    sessionSwitchMerchant(input: $input) {\n      csrfToken\n      merchantId\n      twoFactor\n      challengeId\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CurrentSession { sessions { id current } }\n"): (typeof documents)["\n  query CurrentSession { sessions { id current } }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SignOut($input: SessionRevokeInput!) {\n    sessionRevoke(input: $input) { userErrors { code message } }\n  }\n"): (typeof documents)["\n  mutation SignOut($input: SessionRevokeInput!) {\n    sessionRevoke(input: $input) { userErrors { code message } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation OtpRequest($input: OtpRequestInput!) {\n    otpRequest(input: $input) { requestId expiresIn userErrors { code message field } }\n  }\n"): (typeof documents)["\n  mutation OtpRequest($input: OtpRequestInput!) {\n    otpRequest(input: $input) { requestId expiresIn userErrors { code message field } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation OtpVerify($input: OtpVerifyInput!) {\n    otpVerify(input: $input) { csrfToken merchantId twoFactor challengeId userErrors { code message field } }\n  }\n"): (typeof documents)["\n  mutation OtpVerify($input: OtpVerifyInput!) {\n    otpVerify(input: $input) { csrfToken merchantId twoFactor challengeId userErrors { code message field } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation TwoFactorVerify($input: TwoFactorVerifyInput!) {\n    twoFactorVerify(input: $input) { csrfToken merchantId twoFactor userErrors { code message field } }\n  }\n"): (typeof documents)["\n  mutation TwoFactorVerify($input: TwoFactorVerifyInput!) {\n    twoFactorVerify(input: $input) { csrfToken merchantId twoFactor userErrors { code message field } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation TeamInviteAccept($input: TeamInviteAcceptInput!) {\n    teamInviteAccept(input: $input) { member { id email roles } merchant { id name } userErrors { code message field } }\n  }\n"): (typeof documents)["\n  mutation TeamInviteAccept($input: TeamInviteAcceptInput!) {\n    teamInviteAccept(input: $input) { member { id email roles } merchant { id name } userErrors { code message field } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query BalancePage {\n    balance { available { amount currency } pending { amount currency } }\n    inTransit: settlements(first: 50, status: \"in_transit\") {\n      edges { node { id amount gross fee currency status arrivalDate settledOn transactions } }\n    }\n    paid: settlements(first: 50, status: \"paid\") {\n      edges { node { id amount gross fee currency status arrivalDate settledOn transactions paidAt } }\n    }\n  }\n"): (typeof documents)["\n  query BalancePage {\n    balance { available { amount currency } pending { amount currency } }\n    inTransit: settlements(first: 50, status: \"in_transit\") {\n      edges { node { id amount gross fee currency status arrivalDate settledOn transactions } }\n    }\n    paid: settlements(first: 50, status: \"paid\") {\n      edges { node { id amount gross fee currency status arrivalDate settledOn transactions paidAt } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Customers($first: Int, $after: String, $email: String) {\n    customers(first: $first, after: $after, email: $email) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges { node { id name email phone createdAt } }\n    }\n  }\n"): (typeof documents)["\n  query Customers($first: Int, $after: String, $email: String) {\n    customers(first: $first, after: $after, email: $email) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges { node { id name email phone createdAt } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DealsBoard {\n    crm {\n      deals(first: 100) {\n        totalCount\n        edges { node { id title customerId stage value currency probability updatedAt } }\n      }\n      customers(first: 100) {\n        edges { node { id name email } }\n      }\n    }\n  }\n"): (typeof documents)["\n  query DealsBoard {\n    crm {\n      deals(first: 100) {\n        totalCount\n        edges { node { id title customerId stage value currency probability updatedAt } }\n      }\n      customers(first: 100) {\n        edges { node { id name email } }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DealCreate($input: DealCreateInput!) {\n    dealCreate(input: $input) {\n      deal { id title customerId stage value currency probability updatedAt }\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation DealCreate($input: DealCreateInput!) {\n    dealCreate(input: $input) {\n      deal { id title customerId stage value currency probability updatedAt }\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DealUpdate($input: DealUpdateInput!) {\n    dealUpdate(input: $input) {\n      deal { id title customerId stage value currency probability updatedAt }\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation DealUpdate($input: DealUpdateInput!) {\n    dealUpdate(input: $input) {\n      deal { id title customerId stage value currency probability updatedAt }\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CrmCustomerCreate($input: CrmCustomerCreateInput!) {\n    crmCustomerCreate(input: $input) {\n      customer { id name email }\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation CrmCustomerCreate($input: CrmCustomerCreateInput!) {\n    crmCustomerCreate(input: $input) {\n      customer { id name email }\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ApiKeys {\n    apiKeys(first: 100) {\n      edges { node { id name type prefix mode status createdAt lastUsed } }\n    }\n  }\n"): (typeof documents)["\n  query ApiKeys {\n    apiKeys(first: 100) {\n      edges { node { id name type prefix mode status createdAt lastUsed } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ApiKeyCreate($input: ApiKeyCreateInput!) {\n    apiKeyCreate(input: $input) {\n      key\n      apiKey { id name type prefix mode status createdAt lastUsed }\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation ApiKeyCreate($input: ApiKeyCreateInput!) {\n    apiKeyCreate(input: $input) {\n      key\n      apiKey { id name type prefix mode status createdAt lastUsed }\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ApiKeyRevoke($input: ApiKeyRevokeInput!) {\n    apiKeyRevoke(input: $input) {\n      apiKey { id status }\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation ApiKeyRevoke($input: ApiKeyRevokeInput!) {\n    apiKeyRevoke(input: $input) {\n      apiKey { id status }\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WebhookEndpoints {\n    webhookEndpoints(first: 100) {\n      edges { node { id url status events livemode createdAt } }\n    }\n  }\n"): (typeof documents)["\n  query WebhookEndpoints {\n    webhookEndpoints(first: 100) {\n      edges { node { id url status events livemode createdAt } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WebhookEvents($first: Int, $after: String) {\n    webhookEvents(first: $first, after: $after) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges {\n        node {\n          id event status delivered attempts objectId createdAt\n          deliveries { id endpointId state delivered attempts nextAttemptAt lastStatusCode lastError }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query WebhookEvents($first: Int, $after: String) {\n    webhookEvents(first: $first, after: $after) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges {\n        node {\n          id event status delivered attempts objectId createdAt\n          deliveries { id endpointId state delivered attempts nextAttemptAt lastStatusCode lastError }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WebhookEventAttempts($id: ID!) {\n    node(id: $id) {\n      ... on WebhookEvent {\n        id\n        deliveries {\n          id endpointId state\n          attemptLog { number createdAt statusCode latencyMs error manual }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query WebhookEventAttempts($id: ID!) {\n    node(id: $id) {\n      ... on WebhookEvent {\n        id\n        deliveries {\n          id endpointId state\n          attemptLog { number createdAt statusCode latencyMs error manual }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation WebhookEventRetry($input: WebhookEventRetryInput!) {\n    webhookEventRetry(input: $input) {\n      webhookEvent {\n        id event status delivered attempts objectId createdAt\n        deliveries {\n          id endpointId state delivered attempts nextAttemptAt lastStatusCode lastError\n          attemptLog { number createdAt statusCode latencyMs error manual }\n        }\n      }\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation WebhookEventRetry($input: WebhookEventRetryInput!) {\n    webhookEventRetry(input: $input) {\n      webhookEvent {\n        id event status delivered attempts objectId createdAt\n        deliveries {\n          id endpointId state delivered attempts nextAttemptAt lastStatusCode lastError\n          attemptLog { number createdAt statusCode latencyMs error manual }\n        }\n      }\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Disputes {\n    disputes(first: 100) {\n      totalCount\n      edges { node { id paymentId amount currency reason status evidenceDueBy createdAt } }\n    }\n  }\n"): (typeof documents)["\n  query Disputes {\n    disputes(first: 100) {\n      totalCount\n      edges { node { id paymentId amount currency reason status evidenceDueBy createdAt } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query DisputeDetail($id: ID!) {\n    dispute(id: $id) {\n      id paymentId amount fee currency reason status evidence evidenceDueBy createdAt closedAt\n      evidenceFiles { id filename contentType size sha256 }\n    }\n  }\n"): (typeof documents)["\n  query DisputeDetail($id: ID!) {\n    dispute(id: $id) {\n      id paymentId amount fee currency reason status evidence evidenceDueBy createdAt closedAt\n      evidenceFiles { id filename contentType size sha256 }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DisputeEvidenceSubmit($input: DisputeEvidenceInput!) {\n    disputeEvidenceSubmit(input: $input) {\n      dispute { id status evidence }\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation DisputeEvidenceSubmit($input: DisputeEvidenceInput!) {\n    disputeEvidenceSubmit(input: $input) {\n      dispute { id status evidence }\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DisputeEvidenceFileAdd($input: DisputeEvidenceFileAddInput!) {\n    disputeEvidenceFileAdd(input: $input) {\n      dispute { id evidenceFiles { id filename contentType size sha256 } }\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation DisputeEvidenceFileAdd($input: DisputeEvidenceFileAddInput!) {\n    disputeEvidenceFileAdd(input: $input) {\n      dispute { id evidenceFiles { id filename contentType size sha256 } }\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query HomeAnalytics($today: Date!) {\n    analytics(from: $today, to: $today) { volume transactions approved approvalRate currency }\n  }\n"): (typeof documents)["\n  query HomeAnalytics($today: Date!) {\n    analytics(from: $today, to: $today) { volume transactions approved approvalRate currency }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query HomeSettlements {\n    settlements(first: 20, status: \"in_transit\") { edges { node { id amount currency arrivalDate status } } }\n  }\n"): (typeof documents)["\n  query HomeSettlements {\n    settlements(first: 20, status: \"in_transit\") { edges { node { id amount currency arrivalDate status } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query HomeDisputes {\n    disputes(first: 100, status: \"needs_response\") { totalCount edges { node { id evidenceDueBy } } }\n  }\n"): (typeof documents)["\n  query HomeDisputes {\n    disputes(first: 100, status: \"needs_response\") { totalCount edges { node { id evidenceDueBy } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query HomeInvoices {\n    invoices(first: 100) { edges { node { id zatca { status } gib { status } eta { status } } } }\n  }\n"): (typeof documents)["\n  query HomeInvoices {\n    invoices(first: 100) { edges { node { id zatca { status } gib { status } eta { status } } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Invoices($first: Int, $after: String, $status: String) {\n    invoices(first: $first, after: $after, status: $status) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges {\n        node {\n          id number status currency total dueDate pdfUrl createdAt customerId\n          customer { id name email }\n          zatca { type status }\n          gib { type status }\n          eta { type status }\n          notes { id kind number amount reason createdAt zatca { status } gib { status } eta { status } }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query Invoices($first: Int, $after: String, $status: String) {\n    invoices(first: $first, after: $after, status: $status) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges {\n        node {\n          id number status currency total dueDate pdfUrl createdAt customerId\n          customer { id name email }\n          zatca { type status }\n          gib { type status }\n          eta { type status }\n          notes { id kind number amount reason createdAt zatca { status } gib { status } eta { status } }\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment PaymentRow on Payment {\n    id status amount amountRefunded currency paymentMethodType createdAt\n    card { brand last4 }\n    wallet { type dynamicLast4 }\n    customer { id email phone }\n  }\n"): (typeof documents)["\n  fragment PaymentRow on Payment {\n    id status amount amountRefunded currency paymentMethodType createdAt\n    card { brand last4 }\n    wallet { type dynamicLast4 }\n    customer { id email phone }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Payments($first: Int, $after: String, $status: String, $currency: String, $method: String, $query: String,\n                 $amountGte: Int, $amountLte: Int, $createdGte: DateTime, $createdLte: DateTime) {\n    payments(first: $first, after: $after, status: $status, currency: $currency, method: $method, query: $query,\n             amountGte: $amountGte, amountLte: $amountLte, createdGte: $createdGte, createdLte: $createdLte) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges { node { ...PaymentRow } }\n    }\n  }\n"): (typeof documents)["\n  query Payments($first: Int, $after: String, $status: String, $currency: String, $method: String, $query: String,\n                 $amountGte: Int, $amountLte: Int, $createdGte: DateTime, $createdLte: DateTime) {\n    payments(first: $first, after: $after, status: $status, currency: $currency, method: $method, query: $query,\n             amountGte: $amountGte, amountLte: $amountLte, createdGte: $createdGte, createdLte: $createdLte) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges { node { ...PaymentRow } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PaymentsExport($status: String, $currency: String, $method: String, $query: String,\n                       $amountGte: Int, $amountLte: Int, $createdGte: DateTime, $createdLte: DateTime) {\n    paymentsExport(status: $status, currency: $currency, method: $method, query: $query,\n                   amountGte: $amountGte, amountLte: $amountLte, createdGte: $createdGte, createdLte: $createdLte) {\n      filename csv rowCount userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  query PaymentsExport($status: String, $currency: String, $method: String, $query: String,\n                       $amountGte: Int, $amountLte: Int, $createdGte: DateTime, $createdLte: DateTime) {\n    paymentsExport(status: $status, currency: $currency, method: $method, query: $query,\n                   amountGte: $amountGte, amountLte: $amountLte, createdGte: $createdGte, createdLte: $createdLte) {\n      filename csv rowCount userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription PaymentEvents {\n    paymentEvents {\n      id\n      type\n      payment { ...PaymentRow }\n    }\n  }\n"): (typeof documents)["\n  subscription PaymentEvents {\n    paymentEvents {\n      id\n      type\n      payment { ...PaymentRow }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PaymentDetail($id: ID!) {\n    payment(id: $id) {\n      ...PaymentRow\n      provider amountCaptured captureMethod declineCode receiptUrl invoiceId capturedAt voidedAt\n      refunds { id amount currency reason createdAt }\n      card { brand last4 networks country }\n      wallet { type dynamicLast4 authMethod }\n      installments { count installmentAmount firstInstallmentAmount totalAmount commission paidBy program bank }\n      receipt { channel sentTo status }\n      gib { type number status }\n      etaReceipt { number status }\n      dispute { id status createdAt closedAt evidenceDueBy }\n    }\n  }\n"): (typeof documents)["\n  query PaymentDetail($id: ID!) {\n    payment(id: $id) {\n      ...PaymentRow\n      provider amountCaptured captureMethod declineCode receiptUrl invoiceId capturedAt voidedAt\n      refunds { id amount currency reason createdAt }\n      card { brand last4 networks country }\n      wallet { type dynamicLast4 authMethod }\n      installments { count installmentAmount firstInstallmentAmount totalAmount commission paidBy program bank }\n      receipt { channel sentTo status }\n      gib { type number status }\n      etaReceipt { number status }\n      dispute { id status createdAt closedAt evidenceDueBy }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PaymentRefund($input: PaymentRefundInput!) {\n    paymentRefund(input: $input) {\n      refundId amount\n      payment { id status amountRefunded amountCaptured }\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation PaymentRefund($input: PaymentRefundInput!) {\n    paymentRefund(input: $input) {\n      refundId amount\n      payment { id status amountRefunded amountCaptured }\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PaymentInvoice($id: ID!) {\n    invoice(id: $id) { id number status zatca { status } gib { number status } eta { status } }\n  }\n"): (typeof documents)["\n  query PaymentInvoice($id: ID!) {\n    invoice(id: $id) { id number status zatca { status } gib { number status } eta { status } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TeamMembers {\n    teamMembers(first: 100) {\n      edges { node { id email roles twoFactorEnabled createdAt } }\n    }\n  }\n"): (typeof documents)["\n  query TeamMembers {\n    teamMembers(first: 100) {\n      edges { node { id email roles twoFactorEnabled createdAt } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TeamInvites {\n    teamInvites(first: 100) {\n      edges { node { id email roles status expiresAt createdAt } }\n    }\n  }\n"): (typeof documents)["\n  query TeamInvites {\n    teamInvites(first: 100) {\n      edges { node { id email roles status expiresAt createdAt } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation TeamInviteCreate($input: TeamInviteCreateInput!) {\n    teamInviteCreate(input: $input) {\n      invite { id email roles status expiresAt createdAt }\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation TeamInviteCreate($input: TeamInviteCreateInput!) {\n    teamInviteCreate(input: $input) {\n      invite { id email roles status expiresAt createdAt }\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation TeamInviteRevoke($input: TeamInviteRevokeInput!) {\n    teamInviteRevoke(input: $input) {\n      invite { id status }\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation TeamInviteRevoke($input: TeamInviteRevokeInput!) {\n    teamInviteRevoke(input: $input) {\n      invite { id status }\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation TeamMemberUpdate($input: TeamMemberUpdateInput!) {\n    teamMemberUpdate(input: $input) {\n      member { id email roles }\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation TeamMemberUpdate($input: TeamMemberUpdateInput!) {\n    teamMemberUpdate(input: $input) {\n      member { id email roles }\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation TeamMemberRemove($input: TeamMemberRemoveInput!) {\n    teamMemberRemove(input: $input) {\n      member { id }\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation TeamMemberRemove($input: TeamMemberRemoveInput!) {\n    teamMemberRemove(input: $input) {\n      member { id }\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation StepUp($input: TwoFactorCodeInput!) {\n    stepUp(input: $input) {\n      stepUpExpiresAt\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation StepUp($input: TwoFactorCodeInput!) {\n    stepUp(input: $input) {\n      stepUpExpiresAt\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Sessions {\n    sessions { id current kind device userAgent ip createdAt lastSeenAt }\n  }\n"): (typeof documents)["\n  query Sessions {\n    sessions { id current kind device userAgent ip createdAt lastSeenAt }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SessionRevoke($input: SessionRevokeInput!) {\n    sessionRevoke(input: $input) {\n      session { id }\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation SessionRevoke($input: SessionRevokeInput!) {\n    sessionRevoke(input: $input) {\n      session { id }\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SessionsRevokeOthers {\n    sessionsRevokeOthers {\n      revoked\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation SessionsRevokeOthers {\n    sessionsRevokeOthers {\n      revoked\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation TwoFactorEnroll {\n    twoFactorEnroll {\n      secret otpauthUri qrCode\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation TwoFactorEnroll {\n    twoFactorEnroll {\n      secret otpauthUri qrCode\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation TwoFactorConfirm($input: TwoFactorCodeInput!) {\n    twoFactorConfirm(input: $input) {\n      enabled recoveryCodes\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation TwoFactorConfirm($input: TwoFactorCodeInput!) {\n    twoFactorConfirm(input: $input) {\n      enabled recoveryCodes\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation TwoFactorDisable($input: TwoFactorCodeInput!) {\n    twoFactorDisable(input: $input) {\n      enabled\n      userErrors { code message field }\n    }\n  }\n"): (typeof documents)["\n  mutation TwoFactorDisable($input: TwoFactorCodeInput!) {\n    twoFactorDisable(input: $input) {\n      enabled\n      userErrors { code message field }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AuditEvents($first: Int, $after: String, $actor: ID, $action: String, $objectType: String, $objectId: ID,\n                    $createdGte: DateTime, $createdLte: DateTime) {\n    auditEvents(first: $first, after: $after, actor: $actor, action: $action, objectType: $objectType,\n                objectId: $objectId, createdGte: $createdGte, createdLte: $createdLte) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges { node { id createdAt action ip actor { type id email } object { type id } } }\n    }\n  }\n"): (typeof documents)["\n  query AuditEvents($first: Int, $after: String, $actor: ID, $action: String, $objectType: String, $objectId: ID,\n                    $createdGte: DateTime, $createdLte: DateTime) {\n    auditEvents(first: $first, after: $after, actor: $actor, action: $action, objectType: $objectType,\n                objectId: $objectId, createdGte: $createdGte, createdLte: $createdLte) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges { node { id createdAt action ip actor { type id email } object { type id } } }\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;