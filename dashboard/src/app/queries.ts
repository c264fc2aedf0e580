import { graphql } from '../gql';

export const ViewerQuery = graphql(`
  query Viewer {
    viewer {
      id
      name
      email
      livemode
      country
      timeZone
      today
      member {
        id
        email
        roles
        twoFactorEnabled
        language
        digits
        memberships { merchantId merchantName roles }
        permissions {
          paymentsRead paymentsWrite refundsRead refundsWrite disputesRead disputesWrite
          balanceRead balanceWrite customersRead customersWrite billingRead billingWrite
          einvoicingRead einvoicingWrite crmRead crmWrite developersRead developersWrite
          teamRead teamWrite settingsRead settingsWrite auditRead
        }
      }
    }
  }
`);

export const PreferencesMutation = graphql(`
  mutation MemberPreferences($input: MemberPreferencesUpdateInput!) {
    memberPreferencesUpdate(input: $input) {
      member { id language digits }
      userErrors { code message field }
    }
  }
`);

export const SwitchMerchantMutation = graphql(`
  mutation SwitchMerchant($input: SessionSwitchMerchantInput!) {
    sessionSwitchMerchant(input: $input) {
      csrfToken
      merchantId
      twoFactor
      challengeId
      userErrors { code message field }
    }
  }
`);

export const CurrentSessionQuery = graphql(`
  query CurrentSession { sessions { id current } }
`);

export const SignOutMutation = graphql(`
  mutation SignOut($input: SessionRevokeInput!) {
    sessionRevoke(input: $input) { userErrors { code message } }
  }
`);
