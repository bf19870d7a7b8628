import t from 'tap';
import { runIntegration } from './cases.js';

runIntegration(t, 'grafana');
