"""Egypt's Tax Authority (ETA): e-invoices (B2B, signed CAdES-BES over ETA's canonical
serialization) and e-receipts (B2C, chained by uuid), on the e-invoicing core
(services.einvoicing.core). The package builds, signs and speaks ETA's format; the built-in
simulator stands in for ETA's API in test mode. See README "Egyptian e-invoices and e-receipts"."""
