/** The SDK's version; a test keeps it equal to package.json. */
export const VERSION = '0.2.0';
