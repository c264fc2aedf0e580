"""Marketplace payments (issue 47): a platform merchant sells for its sellers (sub-merchants,
`sellers`), splits its payments between them (`splits`), keeps each seller's double-entry ledger
(`seller_ledger`) and pays them by bank file (`payouts`, `files`). Settings in `settings`."""
