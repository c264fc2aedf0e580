// ESM view of the declarations (the "import" condition): the same API, with Qafila as the default export.
import { Qafila } from './index.js';

export * from './index.js';
export default Qafila;
