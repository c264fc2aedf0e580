import { graphql } from '../gql';

export const TeamMembersList = graphql(`
  query TeamMembers {
    teamMembers(first: 100) {
      edges { node { id email roles twoFactorEnabled createdAt } }
    }
  }
`);

export const TeamInvitesList = graphql(`
  query TeamInvites {
    teamInvites(first: 100) {
      edges { node { id email roles status expiresAt createdAt } }
    }
  }
`);

export const TeamInviteCreate = graphql(`
  mutation TeamInviteCreate($input: TeamInviteCreateInput!) {
    teamInviteCreate(input: $input) {
      invite { id email roles status expiresAt createdAt }
      userErrors { code message field }
    }
  }
`);

export const TeamInviteRevoke = graphql(`
  mutation TeamInviteRevoke($input: TeamInviteRevokeInput!) {
    teamInviteRevoke(input: $input) {
      invite { id status }
      userErrors { code message field }
    }
  }
`);

export const TeamMemberUpdate = graphql(`
  mutation TeamMemberUpdate($input: TeamMemberUpdateInput!) {
    teamMemberUpdate(input: $input) {
      member { id email roles }
      userErrors { code message field }
    }
  }
`);

export const TeamMemberRemove = graphql(`
  mutation TeamMemberRemove($input: TeamMemberRemoveInput!) {
    teamMemberRemove(input: $input) {
      member { id }
      userErrors { code message field }
    }
  }
`);

export const StepUp = graphql(`
  mutation StepUp($input: TwoFactorCodeInput!) {
    stepUp(input: $input) {
      stepUpExpiresAt
      userErrors { code message field }
    }
  }
`);

export const SessionsList = graphql(`
  query Sessions {
    sessions { id current kind device userAgent ip createdAt lastSeenAt }
  }
`);

export const SessionRevoke = graphql(`
  mutation SessionRevoke($input: SessionRevokeInput!) {
    sessionRevoke(input: $input) {
      session { id }
      userErrors { code message field }
    }
  }
`);

export const SessionsRevokeOthers = graphql(`
  mutation SessionsRevokeOthers {
    sessionsRevokeOthers {
      revoked
      userErrors { code message field }
    }
  }
`);

export const TwoFactorEnroll = graphql(`
  mutation TwoFactorEnroll {
    twoFactorEnroll {
      secret otpauthUri qrCode
      userErrors { code message field }
    }
  }
`);

export const TwoFactorConfirm = graphql(`
  mutation TwoFactorConfirm($input: TwoFactorCodeInput!) {
    twoFactorConfirm(input: $input) {
      enabled recoveryCodes
      userErrors { code message field }
    }
  }
`);

export const TwoFactorDisable = graphql(`
  mutation TwoFactorDisable($input: TwoFactorCodeInput!) {
    twoFactorDisable(input: $input) {
      enabled
      userErrors { code message field }
    }
  }
`);

export const AuditEventsList = graphql(`
  query AuditEvents($first: Int, $after: String, $actor: ID, $action: String, $objectType: String, $objectId: ID,
                    $createdGte: DateTime, $createdLte: DateTime) {
    auditEvents(first: $first, after: $after, actor: $actor, action: $action, objectType: $objectType,
                objectId: $objectId, createdGte: $createdGte, createdLte: $createdLte) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { node { id createdAt action ip actor { type id email } object { type id } } }
    }
  }
`);
