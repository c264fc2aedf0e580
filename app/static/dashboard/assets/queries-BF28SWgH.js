import{y as e}from"./index-y5URSzwJ.js";var t=e(`
  query TeamMembers {
    teamMembers(first: 100) {
      edges { node { id email roles twoFactorEnabled createdAt } }
    }
  }
`),n=e(`
  query TeamInvites {
    teamInvites(first: 100) {
      edges { node { id email roles status expiresAt createdAt } }
    }
  }
`),r=e(`
  mutation TeamInviteCreate($input: TeamInviteCreateInput!) {
    teamInviteCreate(input: $input) {
      invite { id email roles status expiresAt createdAt }
      userErrors { code message field }
    }
  }
`),i=e(`
  mutation TeamInviteRevoke($input: TeamInviteRevokeInput!) {
    teamInviteRevoke(input: $input) {
      invite { id status }
      userErrors { code message field }
    }
  }
`),a=e(`
  mutation TeamMemberUpdate($input: TeamMemberUpdateInput!) {
    teamMemberUpdate(input: $input) {
      member { id email roles }
      userErrors { code message field }
    }
  }
`),o=e(`
  mutation TeamMemberRemove($input: TeamMemberRemoveInput!) {
    teamMemberRemove(input: $input) {
      member { id }
      userErrors { code message field }
    }
  }
`),s=e(`
  mutation StepUp($input: TwoFactorCodeInput!) {
    stepUp(input: $input) {
      stepUpExpiresAt
      userErrors { code message field }
    }
  }
`),c=e(`
  query Sessions {
    sessions { id current kind device userAgent ip createdAt lastSeenAt }
  }
`),l=e(`
  mutation SessionRevoke($input: SessionRevokeInput!) {
    sessionRevoke(input: $input) {
      session { id }
      userErrors { code message field }
    }
  }
`),u=e(`
  mutation SessionsRevokeOthers {
    sessionsRevokeOthers {
      revoked
      userErrors { code message field }
    }
  }
`),d=e(`
  mutation TwoFactorEnroll {
    twoFactorEnroll {
      secret otpauthUri qrCode
      userErrors { code message field }
    }
  }
`),f=e(`
  mutation TwoFactorConfirm($input: TwoFactorCodeInput!) {
    twoFactorConfirm(input: $input) {
      enabled recoveryCodes
      userErrors { code message field }
    }
  }
`),p=e(`
  mutation TwoFactorDisable($input: TwoFactorCodeInput!) {
    twoFactorDisable(input: $input) {
      enabled
      userErrors { code message field }
    }
  }
`),m=e(`
  query AuditEvents($first: Int, $after: String, $actor: ID, $action: String, $objectType: String, $objectId: ID,
                    $createdGte: DateTime, $createdLte: DateTime) {
    auditEvents(first: $first, after: $after, actor: $actor, action: $action, objectType: $objectType,
                objectId: $objectId, createdGte: $createdGte, createdLte: $createdLte) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { node { id createdAt action ip actor { type id email } object { type id } } }
    }
  }
`);export{s as a,n as c,t as d,f,u as i,o as l,d as m,l as n,r as o,p,c as r,i as s,m as t,a as u};