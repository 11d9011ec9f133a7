/**
 * The `./testing` entry's data types are written out (type literals, not interfaces: those would lose the implicit index signature) so their fields keep TSDoc
 * in the built `.d.ts` (declaration files drop the comments of a zod schema's fields). Each
 * must stay exactly the type its schema gives: a field changed in one and not the other fails.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { NewEventDeliverySchema } from '../../src/testing/core/delivery-payload.js';
import type {
  SandboxFieldSchema,
  SandboxFormSchema,
  SandboxMetadataInputSchema,
  SandboxProgrammeSchema,
} from '../../src/testing/core/metadata-types.js';
import type {
  NewEventDelivery,
  SandboxField,
  SandboxForm,
  SandboxFormInput,
  SandboxMetadataInput,
  SandboxProgramme,
} from '../../src/testing/index.js';

describe('documented ./testing types equal their schemas', () => {
  it('NewEventDelivery', () => {
    expectTypeOf<NewEventDelivery>().toEqualTypeOf<z.infer<typeof NewEventDeliverySchema>>();
  });
  it('SandboxField, SandboxForm, SandboxProgramme (parsed, defaults applied)', () => {
    expectTypeOf<SandboxField>().toEqualTypeOf<z.infer<typeof SandboxFieldSchema>>();
    expectTypeOf<SandboxForm>().toEqualTypeOf<z.infer<typeof SandboxFormSchema>>();
    expectTypeOf<SandboxProgramme>().toEqualTypeOf<z.infer<typeof SandboxProgrammeSchema>>();
  });
  it('SandboxFormInput, SandboxMetadataInput (as seeded, defaults optional)', () => {
    expectTypeOf<SandboxFormInput>().toEqualTypeOf<z.input<typeof SandboxFormSchema>>();
    expectTypeOf<SandboxMetadataInput>().toEqualTypeOf<z.input<typeof SandboxMetadataInputSchema>>();
  });
});
