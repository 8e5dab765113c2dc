export { PimsSimulator } from "./server";
export type {
  FaultRule,
  GenerateLogsOptions,
  LogSeedLine,
  RequestLogEntry,
  SecretsMode,
  SeedServiceAccount,
  SimApp,
  SimBuild,
  SimProject,
  SimRun,
  SimRunStatus,
  SimServiceAccount,
  SimulatorOptions,
  SimVolume,
} from "./server";
