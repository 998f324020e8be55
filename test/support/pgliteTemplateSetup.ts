// Runs before each test file (vitest setupFiles): its in-memory PGlite databases start from the run's template.
import { usePgliteTemplate } from './pgliteTemplate.js';

usePgliteTemplate();
