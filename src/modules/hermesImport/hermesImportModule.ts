// Importing a Hermes home runs from the CLI (session-ledger import hermes); routes for it belong here.
import { Module } from '@nestjs/common';

@Module({
  controllers: [],
  providers: [],
})
export class HermesImportModule {}
