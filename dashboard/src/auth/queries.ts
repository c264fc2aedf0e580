import { graphql } from '../gql';

export const OtpRequest = graphql(`
  mutation OtpRequest($input: OtpRequestInput!) {
    otpRequest(input: $input) { requestId expiresIn userErrors { code message field } }
  }
`);

export const OtpVerify = graphql(`
  mutation OtpVerify($input: OtpVerifyInput!) {
    otpVerify(input: $input) { csrfToken merchantId twoFactor challengeId userErrors { code message field } }
  }
`);

export const TwoFactorVerify = graphql(`
  mutation TwoFactorVerify($input: TwoFactorVerifyInput!) {
    twoFactorVerify(input: $input) { csrfToken merchantId twoFactor userErrors { code message field } }
  }
`);

export const TeamInviteAccept = graphql(`
  mutation TeamInviteAccept($input: TeamInviteAcceptInput!) {
    teamInviteAccept(input: $input) { member { id email roles } merchant { id name } userErrors { code message field } }
  }
`);
