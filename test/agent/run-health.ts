/**
 * Runs the agent's real HealthChecker with the YAML config given as argv[2] in the current network
 * namespace and prints the results as JSON. The netns tests start it with `ip netns exec`.
 */
import { HealthChecker, loadHealthConfig } from '@nodenet/agent';

const config = await loadHealthConfig(process.argv[2] ?? '');
const results = await new HealthChecker(config).run();
process.stdout.write(JSON.stringify(results));
