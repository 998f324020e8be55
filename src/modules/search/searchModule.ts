// Search: full-text search over the transcripts the transcript-search projection keeps.
import { Module } from '@nestjs/common';
import { SearchController } from './searchController.js';

@Module({ controllers: [SearchController] })
export class SearchModule {}
