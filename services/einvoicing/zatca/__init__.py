"""ZATCA phase 2 (Fatoora) e-invoicing: the document core (UBL 2.1 XML, invoice hash, XAdES
signature, TLV QR), the EGS unit's keys and CSR, the chain (ICV/PIH), ZATCA's API (or the
bundled simulator), and the reporting job. See README "Saudi e-invoicing (ZATCA phase 2)"."""
