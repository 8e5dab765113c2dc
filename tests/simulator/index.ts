export { PimsSimulator } from "./server";
export type {
  FaultRule,
  GenerateLogsOptions,
  LogSeedLine,
  RequestLogEntry,
  SecretsMode,
  SimApp,
  SimBuild,
  SimProject,
  SimRun,
  SimRunStatus,
  SimServiceAccount,
  SimulatorOptions,
  SimVolume,
} from "./server";
