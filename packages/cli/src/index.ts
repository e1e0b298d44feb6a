// The public surface of @nodenet/cli: the command line in process (the demo and the tests drive it
// as the binary does) and its exit codes. The views are internals; the plugin's own tests import
// them from ../src directly.
export { EXIT, type ExitCode } from './exit-codes.js';
export { run, type Io } from './program.js';
export { startDashboard, type RunningDashboard, type DashboardOptions } from './dashboard/server.js';
export { dashboardFacts, nodeDetail, type DashboardFacts, type NodeCell } from './dashboard/facts.js';
