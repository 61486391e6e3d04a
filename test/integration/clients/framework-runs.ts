/**
 * The framework runs the handler suites share (integration and e2e): a LangChain.js chain with a
 * tool and `ChatOpenAI` pointed at the gateway, and a LlamaIndex.TS query over a two-document
 * in-memory index using the gateway for both the LLM and the embeddings.
 */
import { HumanMessage, type ToolMessage } from '@langchain/core/messages';
import { RunnableLambda } from '@langchain/core/runnables';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { OpenAI, OpenAIEmbedding } from '@llamaindex/openai';
import { Document, Settings, VectorStoreIndex } from 'llamaindex';
import { z } from 'zod';
import type { SidegateCallbackHandler } from '../../../src/client/langchain.js';
import type { SidegateLlamaIndexHandler } from '../../../src/client/llamaindex.js';

export const WEATHER_QUESTION = 'What is the weather? Call get_weather {"city":"Paris"} please.';

/** Asks the model, runs the tool it called, asks again with the result. */
export function weatherAgent(handler: SidegateCallbackHandler, providerKey: string) {
  const getWeather = tool(async ({ city }: { city: string }) => `18C in ${city}`, {
    name: 'get_weather',
    description: 'Weather of a city',
    schema: z.object({ city: z.string() }),
  });
  const model = new ChatOpenAI({
    model: 'gemini-2.5-flash',
    apiKey: providerKey,
    maxRetries: 0,
    configuration: handler.chatOpenAIConfiguration({ provider: 'google' }),
  }).bindTools([getWeather]);
  return RunnableLambda.from(async (question: string, config) => {
    const first = await model.invoke([new HumanMessage(question)], config);
    const result = (await getWeather.invoke(first.tool_calls![0]!, config)) as ToolMessage;
    const final = await model.invoke([new HumanMessage(question), first, result], config);
    return final.content as string;
  }).withConfig({ runName: 'weather-agent' });
}

/** Builds the index and asks one question; answers the response text. */
export async function runLlamaQuery(baseURL: string, handler: SidegateLlamaIndexHandler, providerKey: string): Promise<string> {
  const session = handler.openAISessionOptions({ provider: 'google' });
  Settings.llm = new OpenAI({ model: 'gemini-2.5-flash', apiKey: providerKey, baseURL, maxRetries: 0, additionalSessionOptions: session });
  Settings.embedModel = new OpenAIEmbedding({ model: 'gemini-embedding-001', dimensions: 256, apiKey: providerKey, baseURL, maxRetries: 0, additionalSessionOptions: session });
  const index = await VectorStoreIndex.fromDocuments([
    new Document({ text: 'Paris is the capital of France and sits on the Seine.' }),
    new Document({ text: 'The Nile is a long river that flows through Egypt in Africa.' }),
  ]);
  const engine = index.asQueryEngine({ similarityTopK: 1 });
  const response = await engine.query({ query: 'What is the capital of France?' });
  return response.toString();
}
