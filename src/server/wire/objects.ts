/** The API's objects are part of the contract (src/contract/objects.ts); routes import them from here too. */
export * from '../../contract/objects.ts';
