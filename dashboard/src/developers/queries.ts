import { graphql } from '../gql';

export const ApiKeysList = graphql(`
  query ApiKeys {
    apiKeys(first: 100) {
      edges { node { id name type prefix mode status createdAt lastUsed } }
    }
  }
`);

export const ApiKeyCreate = graphql(`
  mutation ApiKeyCreate($input: ApiKeyCreateInput!) {
    apiKeyCreate(input: $input) {
      key
      apiKey { id name type prefix mode status createdAt lastUsed }
      userErrors { code message field }
    }
  }
`);

export const ApiKeyRevoke = graphql(`
  mutation ApiKeyRevoke($input: ApiKeyRevokeInput!) {
    apiKeyRevoke(input: $input) {
      apiKey { id status }
      userErrors { code message field }
    }
  }
`);

export const WebhookEndpointsList = graphql(`
  query WebhookEndpoints {
    webhookEndpoints(first: 100) {
      edges { node { id url status events livemode createdAt } }
    }
  }
`);

export const WebhookEventsList = graphql(`
  query WebhookEvents($first: Int, $after: String) {
    webhookEvents(first: $first, after: $after) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges {
        node {
          id event status delivered attempts objectId createdAt
          deliveries { id endpointId state delivered attempts nextAttemptAt lastStatusCode lastError }
        }
      }
    }
  }
`);

export const WebhookEventAttempts = graphql(`
  query WebhookEventAttempts($id: ID!) {
    node(id: $id) {
      ... on WebhookEvent {
        id
        deliveries {
          id endpointId state
          attemptLog { number createdAt statusCode latencyMs error manual }
        }
      }
    }
  }
`);

export const WebhookEventRetry = graphql(`
  mutation WebhookEventRetry($input: WebhookEventRetryInput!) {
    webhookEventRetry(input: $input) {
      webhookEvent {
        id event status delivered attempts objectId createdAt
        deliveries {
          id endpointId state delivered attempts nextAttemptAt lastStatusCode lastError
          attemptLog { number createdAt statusCode latencyMs error manual }
        }
      }
      userErrors { code message field }
    }
  }
`);
