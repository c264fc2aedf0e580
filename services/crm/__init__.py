"""The CRM domain: accounts and tokens, customers, deals and commissions, messaging, reports."""
