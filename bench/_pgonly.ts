import { postgresBench } from './postgres-runtime.js';
await postgresBench();
