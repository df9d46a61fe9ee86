// Signed verdicts: Ed25519 keys, in-toto statements, DSSE envelopes (issue 4).
export {
  type SigningKey, KeyError, generateKey, keyFromSeed, writeKeyFiles, loadSigningKey, dataDirKey,
  publicKeyPem, parsePublicKeyPem, keyIdOf, spkiDer, SEED_FILE, PUBLIC_KEY_FILE,
} from "./keys.js";
export {
  type InTotoStatement, type VerdictPredicate, type StatementContext, type StatementSubject, type JournalPosition,
  STATEMENT_TYPE, VERDICT_PREDICATE_TYPE, buildStatement, journalPositionOf,
} from "./statement.js";
export {
  type DsseEnvelope, type DsseSignature, type VerifyResult, IN_TOTO_PAYLOAD_TYPE, pae, signStatement, verifyEnvelope,
  statementOf,
} from "./dsse.js";
export {
  type OverridePredicate, type OverriddenVerdict, OVERRIDE_PREDICATE_TYPE, buildOverrideStatement, overridePredicateOf,
} from "./override.js";
export {
  type SealKey, SEAL_KEY_FILE, SEAL_PUBLIC_KEY_FILE, sealKeyIdOf, sealPublicKeyPem, parseSealPublicKeyPem, sealKeyFromSecret,
  generateSealKey, writeSealKeyFiles, loadSealKey, dataDirSealKey, sealPublicKeyOf,
} from "./seal-keys.js";
export {
  type SealedFile, type SealedContents, SEALED_FORMAT, MAX_SEALED_BYTES, SealedError, sealFiles, readSealedHeader, openSealed,
  safeRelativePath, sealedFileDigest, sealedTestId,
} from "./sealed-box.js";
