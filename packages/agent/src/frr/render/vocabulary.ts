// The words every render module shares: an address family and a policy direction. Kept apart from
// the model so the modules that build its parts (peerings, loopback lines) need not import it.
export type Family = 4 | 6;
export type Direction = 'import' | 'export';
