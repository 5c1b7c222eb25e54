// What the rest of the harness may use of coordination/: its other files are its own.
export { LeaseBusyError, type HeldLease, type Lease } from './lease.js';
