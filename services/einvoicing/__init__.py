"""E-invoicing, a domain of its own: one country-agnostic core (`core`: units per merchant and
mode, the document chain under a row lock, statuses, the submit job's claim and backoff, test-mode
outages, notes that refer to their original, the registry of authorities) and one package per tax
authority (`zatca/`, `gib/`, `eta/`) that only builds, signs and speaks its authority's format."""
