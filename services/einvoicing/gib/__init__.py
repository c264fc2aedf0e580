"""GİB (Turkey) e-invoicing: e-Fatura and e-Arşiv Fatura in UBL-TR 1.2 through an integrator
(özel entegratör): the unit's set-up (`units`), the document (`ubl`), its XAdES-BES signature
(`signing`), the sandbox integrator of test mode (`sandbox`) and the integrator client
(`integrator`), the documents' chain and statuses (`documents`). Built on services.einvoicing.core.
See README "Turkish e-invoices"."""
