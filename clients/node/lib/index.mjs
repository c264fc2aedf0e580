// ESM entry: the CommonJS implementation, re-exported with named exports.
import cjs from './index.cjs';

export const {
  Qafila, Page, PagePromise, VERSION, DEFAULT_BASE_URL, ERROR_FIELDS,
  QafilaError, APIConnectionError, InvalidRequestError, NotFoundError, AuthenticationError, CardError,
  PermissionDeniedError, ConflictError, IdempotencyError, RateLimitError, APIError, SignatureVerificationError,
  verifyWebhook, verifyWebhookV2, constructEvent, computeSignature, computeSignatureV2,
  SIGNATURE_HEADER, SIGNATURE_V2_HEADER, TIMESTAMP_HEADER,
} = cjs;
export default Qafila;
