/** The config file (`statewright.config.ts`): how it is written, found and read. */
export { defineConfig, type StatewrightConfig } from './define-config.js';
export { editMachine, type MachineDefinition } from './edit-machine.js';
export { defineLifecycle, type NamedLifecycle, type LifecycleSpec } from './define-lifecycle.js';
export type { WaitsFor, WaitingFor } from '../../machines/lifecycle.js';
export { CONFIG_FILE_NAMES, findConfig, type ConfigLocation } from './find-config.js';
export { loadRegistry, registryOf, BUILT_IN_REGISTRY, type Registry } from './registry.js';
export { ConfigNotChosenError, ConfigNotFoundError, ConfigLoadError, InvalidConfigError } from './config-errors.js';
export { configHash, type ConfigSource } from './config-source.js';
