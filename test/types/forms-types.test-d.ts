/**
 * Compile-time checks of the forms API: `checkForms`' result narrows by `kind`, and the
 * client's `formSnapshot` options take a snapshot only. Each `@ts-expect-error` must be used.
 */
import { describe, expectTypeOf, it } from 'vitest';
import {
  type ClaimsClient,
  type ClaimsClientOptions,
  checkForms,
  type FieldTypeAttributes,
  type FormChange,
  type FormChangeKind,
  type FormSnapshot,
  type IncidentFieldDescriptor,
} from '../../src/index.js';

declare const client: ClaimsClient;
declare const snapshot: FormSnapshot;

describe('checkForms', () => {
  it('resolves to FormChange[], whose before/after narrow by kind', async () => {
    const changes = await checkForms(client, snapshot);
    expectTypeOf(changes).toEqualTypeOf<FormChange[]>();
    const change = changes[0] as FormChange;
    expectTypeOf(change.form).toEqualTypeOf<string>();
    expectTypeOf(change.identifier).toEqualTypeOf<string>();
    expectTypeOf(change.breaking).toEqualTypeOf<boolean>();
    expectTypeOf(change.kind).toEqualTypeOf<FormChangeKind>();
    if (change.kind === 'max_length_changed')
      expectTypeOf(change.after).toEqualTypeOf<number | null | undefined>();
    if (change.kind === 'list_value_removed') expectTypeOf(change.before).toEqualTypeOf<string | undefined>();
    if (change.kind === 'field_added')
      expectTypeOf(change.after).toEqualTypeOf<IncidentFieldDescriptor | undefined>();
    if (change.kind === 'type_changed')
      expectTypeOf(change.before).toEqualTypeOf<FieldTypeAttributes | undefined>();
    if (change.kind === 'form_added')
      expectTypeOf(change.after).toEqualTypeOf<IncidentFieldDescriptor[] | undefined>();
  });

  it('the kinds are the pinned ten', () => {
    expectTypeOf<FormChangeKind>().toEqualTypeOf<
      | 'form_added'
      | 'form_removed'
      | 'field_added'
      | 'field_removed'
      | 'field_renamed'
      | 'required_changed'
      | 'list_value_added'
      | 'list_value_removed'
      | 'max_length_changed'
      | 'type_changed'
    >();
  });

  it('takes a client and a snapshot', () => {
    // @ts-expect-error: a file name is not a snapshot
    void checkForms(client, 'claims-forms.json');
    // @ts-expect-error: a snapshot needs its version
    void checkForms(client, { forms: {} });
  });
});

describe('formSnapshot options', () => {
  it('formSnapshot takes a snapshot; formSnapshotOnly a boolean', () => {
    expectTypeOf<ClaimsClientOptions['formSnapshot']>().toEqualTypeOf<FormSnapshot | undefined>();
    expectTypeOf<ClaimsClientOptions['formSnapshotOnly']>().toEqualTypeOf<boolean | undefined>();
    const options: ClaimsClientOptions = {
      baseUrl: 'https://x',
      accessToken: 't',
      formSnapshot: {
        version: 1,
        forms: { 'P/T/GB': { programmeCode: 'P', policyTypeCode: 'T', countryCode: 'GB', descriptors: [] } },
      },
      formSnapshotOnly: true,
    };
    void options;
    const version2 = { version: 2 as const, forms: {} };
    // @ts-expect-error: version 2 is not this SDK's format
    const wrong: FormSnapshot = version2;
    void wrong;
  });
});
