import type { SandboxMetadataInput } from './metadata-types.js';

const YES_NO = ['Yes', 'No'];

/**
 * The demo metadata a new sandbox starts with: three programmes and their incident forms,
 * with list fields, free-entry fields, `maxLength` and required fields. A fresh copy on
 * every call, so a caller may change it and seed it back.
 *
 * The home form has no required field so that an incident without `extendedFields` is
 * accepted for `PRG-HOME`; the motor and travel forms have required fields.
 */
export function defaultSandboxMetadata(): Required<SandboxMetadataInput> {
  return {
    programmes: [
      {
        programmeCode: 'PRG-HOME',
        name: 'Home Insurance',
        policyTypes: [
          { policyTypeCode: 'HOME-STD', name: 'Home Standard', countries: ['GB', 'IE'] },
          { policyTypeCode: 'HOME-PLUS', name: 'Home Plus', countries: ['GB'] },
        ],
      },
      {
        programmeCode: 'PRG-MOTOR',
        name: 'Motor Insurance',
        policyTypes: [{ policyTypeCode: 'MOTOR-COMP', name: 'Comprehensive', countries: ['GB', 'FR', 'DE'] }],
      },
      {
        programmeCode: 'PRG-TRAVEL',
        name: 'Travel Insurance',
        policyTypes: [
          { policyTypeCode: 'TRAVEL-SINGLE', name: 'Single Trip', countries: ['GB', 'FR', 'DE', 'ES'] },
        ],
      },
    ],
    forms: [
      {
        programmeCode: 'PRG-HOME',
        policyTypeCode: 'HOME-STD',
        fields: homeFields(),
      },
      {
        programmeCode: 'PRG-HOME',
        policyTypeCode: 'HOME-PLUS',
        fields: [
          ...homeFields(),
          {
            identifier: 'claim_form:Alternative_Accommodation',
            name: 'Alternative accommodation needed',
            section: 'Cover',
            listSource: YES_NO,
          },
        ],
      },
      {
        programmeCode: 'PRG-MOTOR',
        policyTypeCode: 'MOTOR-COMP',
        fields: [
          {
            identifier: 'motor_claim:Vehicle_Registration',
            name: 'Vehicle registration',
            section: 'Vehicle',
            maxLength: 10,
            isRequired: true,
          },
          {
            identifier: 'motor_claim:Incident_Type',
            name: 'Type of incident',
            section: 'Incident',
            isRequired: true,
            listSource: ['Collision', 'Theft', 'Fire', 'Windscreen', 'Vandalism'],
          },
          {
            identifier: 'motor_claim:Third_Party_Involved',
            name: 'Third party involved',
            section: 'Incident',
            listSource: YES_NO,
          },
          { identifier: 'motor_claim:Driver_Name', name: 'Driver name', section: 'Driver', maxLength: 100 },
        ],
      },
      {
        programmeCode: 'PRG-TRAVEL',
        policyTypeCode: 'TRAVEL-SINGLE',
        fields: [
          {
            identifier: 'travel_claim:Claim_Type',
            name: 'Claim type',
            section: 'Claim',
            isRequired: true,
            listSource: ['Medical', 'Cancellation', 'Baggage', 'Delay'],
          },
          {
            identifier: 'travel_claim:Destination',
            name: 'Destination',
            section: 'Trip',
            maxLength: 56,
          },
        ],
      },
    ],
  };
}

function homeFields() {
  return [
    {
      identifier: 'claim_form:Cause_Of_Loss',
      name: 'Cause of loss',
      section: 'Incident',
      listSource: ['Fire', 'Escape of water', 'Storm', 'Theft', 'Accidental damage', 'Subsidence'],
    },
    {
      identifier: 'claim_form:Rooms_Affected',
      name: 'Rooms affected',
      section: 'Damage',
      maxLength: 200,
    },
    {
      identifier: 'claim_form:Property_Occupied',
      name: 'Property occupied',
      section: 'Property',
      listSource: YES_NO,
    },
    {
      identifier: 'claim_form:Contractor_Reference',
      name: 'Contractor reference',
      section: 'Damage',
      maxLength: 20,
    },
    { identifier: 'claim_form:Notes', name: 'Notes', section: 'Other' },
  ];
}
