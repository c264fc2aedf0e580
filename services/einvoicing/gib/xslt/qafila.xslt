<?xml version="1.0" encoding="UTF-8"?>
<!-- Qafila's visual template for UBL-TR 1.2 invoices (e-Fatura, e-Arşiv Fatura): embedded in each
     document as GİB asks (AdditionalDocumentReference, DocumentType XSLT) so that an integrator's
     or GİB's viewer renders it. -->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
    xmlns:inv="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
    xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
    xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
    exclude-result-prefixes="inv cac cbc">
  <xsl:output method="html" encoding="UTF-8" indent="yes"/>
  <xsl:template match="/inv:Invoice">
    <html><head><meta charset="UTF-8"/><title><xsl:value-of select="cbc:ID"/></title></head>
      <body style="font-family: sans-serif">
        <h1><xsl:choose><xsl:when test="cbc:ProfileID='EARSIVFATURA'">e-Arşiv Fatura</xsl:when>
          <xsl:otherwise>e-Fatura</xsl:otherwise></xsl:choose></h1>
        <table>
          <tr><td>Fatura No</td><td><xsl:value-of select="cbc:ID"/></td></tr>
          <tr><td>ETTN</td><td><xsl:value-of select="cbc:UUID"/></td></tr>
          <tr><td>Senaryo</td><td><xsl:value-of select="cbc:ProfileID"/></td></tr>
          <tr><td>Fatura Tipi</td><td><xsl:value-of select="cbc:InvoiceTypeCode"/></td></tr>
          <tr><td>Tarih</td><td><xsl:value-of select="cbc:IssueDate"/><xsl:text> </xsl:text><xsl:value-of select="cbc:IssueTime"/></td></tr>
        </table>
        <h2>Satıcı</h2>
        <p><xsl:value-of select="cac:AccountingSupplierParty/cac:Party/cac:PartyName/cbc:Name"/><br/>
          VKN/TCKN: <xsl:value-of select="cac:AccountingSupplierParty/cac:Party/cac:PartyIdentification/cbc:ID"/><br/>
          Vergi Dairesi: <xsl:value-of select="cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme/cac:TaxScheme/cbc:Name"/></p>
        <h2>Alıcı</h2>
        <p><xsl:value-of select="cac:AccountingCustomerParty/cac:Party/cac:PartyName/cbc:Name"/>
          <xsl:value-of select="cac:AccountingCustomerParty/cac:Party/cac:Person/cbc:FirstName"/><xsl:text> </xsl:text>
          <xsl:value-of select="cac:AccountingCustomerParty/cac:Party/cac:Person/cbc:FamilyName"/><br/>
          VKN/TCKN: <xsl:value-of select="cac:AccountingCustomerParty/cac:Party/cac:PartyIdentification/cbc:ID"/></p>
        <table border="1" cellpadding="4">
          <tr><th>#</th><th>Mal/Hizmet</th><th>Miktar</th><th>Birim Fiyat</th><th>KDV</th><th>Tutar</th></tr>
          <xsl:for-each select="cac:InvoiceLine">
            <tr><td><xsl:value-of select="cbc:ID"/></td><td><xsl:value-of select="cac:Item/cbc:Name"/></td>
              <td><xsl:value-of select="cbc:InvoicedQuantity"/></td><td><xsl:value-of select="cac:Price/cbc:PriceAmount"/></td>
              <td><xsl:value-of select="cac:TaxTotal/cbc:TaxAmount"/></td><td><xsl:value-of select="cbc:LineExtensionAmount"/></td></tr>
          </xsl:for-each>
        </table>
        <table>
          <tr><td>Mal Hizmet Toplam Tutarı</td><td><xsl:value-of select="cac:LegalMonetaryTotal/cbc:LineExtensionAmount"/> TL</td></tr>
          <tr><td>Hesaplanan KDV</td><td><xsl:value-of select="cac:TaxTotal/cbc:TaxAmount"/> TL</td></tr>
          <tr><td>Vergiler Dahil Toplam Tutar</td><td><xsl:value-of select="cac:LegalMonetaryTotal/cbc:TaxInclusiveAmount"/> TL</td></tr>
          <tr><td>Ödenecek Tutar</td><td><xsl:value-of select="cac:LegalMonetaryTotal/cbc:PayableAmount"/> TL</td></tr>
        </table>
        <xsl:for-each select="cbc:Note"><p><xsl:value-of select="."/></p></xsl:for-each>
      </body></html>
  </xsl:template>
</xsl:stylesheet>
