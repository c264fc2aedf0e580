import { graphql } from '../gql';

export const DisputesList = graphql(`
  query Disputes {
    disputes(first: 100) {
      totalCount
      edges { node { id paymentId amount currency reason status evidenceDueBy createdAt } }
    }
  }
`);

export const DisputeDetail = graphql(`
  query DisputeDetail($id: ID!) {
    dispute(id: $id) {
      id paymentId amount fee currency reason status evidence evidenceDueBy createdAt closedAt
      evidenceFiles { id filename contentType size sha256 }
    }
  }
`);

export const DisputeEvidenceSubmit = graphql(`
  mutation DisputeEvidenceSubmit($input: DisputeEvidenceInput!) {
    disputeEvidenceSubmit(input: $input) {
      dispute { id status evidence }
      userErrors { code message field }
    }
  }
`);

export const DisputeEvidenceFileAdd = graphql(`
  mutation DisputeEvidenceFileAdd($input: DisputeEvidenceFileAddInput!) {
    disputeEvidenceFileAdd(input: $input) {
      dispute { id evidenceFiles { id filename contentType size sha256 } }
      userErrors { code message field }
    }
  }
`);
