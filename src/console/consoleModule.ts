// The web console: its static files mounted at /console when the application initialises.
import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyAdapter } from '@nestjs/platform-fastify';
import { mountConsole } from './consoleAssets.js';

@Injectable()
class ConsoleMount implements OnModuleInit {
  constructor(private readonly http: HttpAdapterHost) {}

  // After Nest has added its routes and before its not-found handler: no route of the API lies under /console.
  onModuleInit(): void {
    mountConsole(this.http.httpAdapter as FastifyAdapter);
  }
}

@Module({ providers: [ConsoleMount] })
export class ConsoleModule {}
