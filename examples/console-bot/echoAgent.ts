// The "agent" of the example: it thinks for a while, then answers. Swap in a model call here.

export interface Agent {
  reply(text: string, context: { sessionId: string; turnIndex: number }): Promise<string>;
}

export class EchoAgent implements Agent {
  constructor(private readonly thinkMs: number) {}

  async reply(text: string, context: { sessionId: string; turnIndex: number }): Promise<string> {
    await new Promise((resolve) => setTimeout(resolve, this.thinkMs));
    return `echo #${context.turnIndex}: ${text}`;
  }
}
