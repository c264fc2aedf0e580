import{y as e}from"./index-y5URSzwJ.js";var t=e(`
  query Disputes {
    disputes(first: 100) {
      totalCount
      edges { node { id paymentId amount currency reason status evidenceDueBy createdAt } }
    }
  }
`),n=e(`
  query DisputeDetail($id: ID!) {
    dispute(id: $id) {
      id paymentId amount fee currency reason status evidence evidenceDueBy createdAt closedAt
      evidenceFiles { id filename contentType size sha256 }
    }
  }
`),r=e(`
  mutation DisputeEvidenceSubmit($input: DisputeEvidenceInput!) {
    disputeEvidenceSubmit(input: $input) {
      dispute { id status evidence }
      userErrors { code message field }
    }
  }
`),i=e(`
  mutation DisputeEvidenceFileAdd($input: DisputeEvidenceFileAddInput!) {
    disputeEvidenceFileAdd(input: $input) {
      dispute { id evidenceFiles { id filename contentType size sha256 } }
      userErrors { code message field }
    }
  }
`);export{t as i,i as n,r,n as t};