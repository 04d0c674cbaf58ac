import { entryContractSchema } from './entry-contract.js';
import { transcriptRecordSchema } from './transcript-record.js';

/**
 * The loop protocol's zod schemas by the name their JSON Schema is published under
 * (`z.toJSONSchema(schema)` emits each; e.g. `schemas/transcript-record.json`).
 */
export const loopProtocolSchemas = {
  'transcript-record': transcriptRecordSchema,
  'entry-contract': entryContractSchema,
} as const;
