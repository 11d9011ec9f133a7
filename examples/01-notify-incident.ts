// Notify an incident with extended fields checked against the form metadata, and a file
// attached; then show a validation failure caught before sending, and one from the server.
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ClaimsValidationError,
  checkExtendedFields,
  extendedFieldsFrom,
  UnprocessableEntityError,
} from 'claims-notification-sdk';
import { clientFromEnv } from './env.js';

const client = clientFromEnv();
const form = { programmeCode: 'PRG-HOME', policyTypeCode: 'HOME-STD', countryCode: 'GB' };

// 1. What does the form for this programme / policy type / country ask for?
const fields = await client.metadata.incidentFields(form);
console.log(
  `The ${form.programmeCode}/${form.policyTypeCode}/${form.countryCode} form has ${fields.length} fields:`,
);
for (const field of fields) {
  const rule = field.listSource
    ? `one of ${field.listSource.join(' | ')}`
    : field.maxLength == null
      ? 'free text'
      : `free text, at most ${field.maxLength} characters`;
  console.log(`  ${field.identifier}${field.isRequired ? ' (required)' : ''}: ${rule}`);
}

// 2. Build the values and check them locally (incidents.create checks them again anyway).
const extendedFields = extendedFieldsFrom({
  'claim_form:Cause_Of_Loss': 'Escape of water',
  'claim_form:Rooms_Affected': 'Kitchen, hallway',
  'claim_form:Property_Occupied': 'Yes',
});
const problems = checkExtendedFields(fields, extendedFields);
if (problems.length > 0) throw new Error(`unexpected problems: ${JSON.stringify(problems)}`);

// 3. Notify it, with a photo from disk uploaded by the SDK first.
const photo = join(tmpdir(), `kitchen-ceiling-${process.pid}.jpg`);
try {
  await writeFile(photo, Buffer.from('not really a JPEG, but bytes all the same'));
  const incident = {
    programmeCode: form.programmeCode,
    policyTypeCode: form.policyTypeCode,
    policyCountry: form.countryCode,
    incidentDate: '2026-11-02',
    description: 'Burst pipe above the kitchen; ceiling collapsed',
  };
  const { incidentId } = await client.incidents.create({
    ...incident,
    extendedFields,
    attachments: [{ file: photo, description: 'Kitchen ceiling' }],
  });
  console.log(
    `Notified incident ${incidentId} with ${extendedFields.length} extended fields and 1 attachment`,
  );

  // 4. A value outside the field's list: the SDK refuses it before sending anything.
  const wrong = extendedFieldsFrom({ 'claim_form:Cause_Of_Loss': 'Meteor strike' });
  try {
    await client.incidents.create({ ...incident, extendedFields: wrong });
    throw new Error('expected a validation error');
  } catch (error) {
    if (!(error instanceof ClaimsValidationError)) throw error;
    console.log(
      `Caught before sending (ClaimsValidationError): ${error.issues.map((i) => i.message).join('; ')}`,
    );
  }

  // 5. The same with the SDK's check turned off: the service refuses it with a 422.
  try {
    await client.incidents.create({ ...incident, extendedFields: wrong }, { checkExtendedFields: false });
    throw new Error('expected the server to refuse it');
  } catch (error) {
    if (!(error instanceof UnprocessableEntityError)) throw error;
    console.log(`Refused by the server (${error.status} ${error.name}): ${error.message}`);
  }
} finally {
  // The photo only stood in for a user's file: leave nothing behind in the temp directory.
  await rm(photo, { force: true });
}
